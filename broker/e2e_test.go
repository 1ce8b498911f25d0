//go:build linux

package broker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// fleet is a private tmux server with an attached client (the human's
// terminal) and supervisors of fake agents in its windows.
type fleet struct {
	*testutil.Rig // the shared rig; the fields below name its parts
	t             *testing.T
	tm            *testutil.Tmux
	client        *testutil.Client
	bins          testutil.Bins
	dir           string
	env           map[string]string
}

func newFleet(t *testing.T, configYAML string) *fleet {
	t.Helper()
	w := testutil.NewRig(t, configYAML)
	f := &fleet{Rig: w, t: t, tm: w.Tmux, bins: w.Bins, dir: w.Dir, env: w.Env}
	f.client = f.tm.AttachClient(t)
	return f
}

func (f *fleet) write(rel, content string) string { return f.Write(rel, content) }

// start supervises a fake agent for document NAME.md in a new window and
// returns its pane.
func (f *fleet) start(name string) string {
	f.t.Helper()
	return f.Start(name, "-echo")
}

func (f *fleet) sessions() []broker.Listing {
	f.t.Helper()
	res, err := broker.Discover(context.Background(), f.env["SUP_RUNTIME_DIR"], 5*time.Second)
	if err != nil {
		f.t.Fatal(err)
	}
	return res.Sessions
}

func (f *fleet) session(name string) broker.Listing {
	f.t.Helper()
	for _, s := range f.sessions() {
		if s.State.Name == name {
			return s
		}
	}
	f.t.Fatalf("no session %s", name)
	return broker.Listing{}
}

// hook tells NAME's supervisor an agent hook fired, as `sup hook` does.
func (f *fleet) hook(name, event string) {
	f.t.Helper()
	ipctest.Hook(f.t, f.session(name).Socket, name, event)
}

// stuck makes NAME wait on the human; the next one to get stuck has a
// later waiting_since.
func (f *fleet) stuck(name string) {
	f.t.Helper()
	ipctest.Stuck(f.t, f.session(name).Socket, name)
}

// sup runs a broker verb as the human would from inside the tmux server
// ($TMUX set), naming the attached client.
func (f *fleet) sup(args ...string) (string, error) {
	f.t.Helper()
	env := append(f.Environ(), fmt.Sprintf("TMUX=%s,%d,0", f.tm.SocketPath, f.tm.ServerPID))
	return f.supEnv(env, args...)
}

func (f *fleet) supEnv(env []string, args ...string) (string, error) {
	f.t.Helper()
	return f.Sup(env, args...)
}

func (f *fleet) mustSup(args ...string) string {
	f.t.Helper()
	out, err := f.sup(args...)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// wantClientOn fails the test unless the human's client shows pane.
func (f *fleet) wantClientOn(pane, when string) {
	f.t.Helper()
	if got := f.clientPane(); got != pane {
		f.t.Fatalf("%s: the client is on %s, want %s", when, got, pane)
	}
}

// clientPane is the pane the human's client shows.
func (f *fleet) clientPane() string {
	f.t.Helper()
	return f.tm.ClientPane(f.t, f.client)
}

func (f *fleet) next() string {
	f.t.Helper()
	return f.mustSup("next", "--client", f.client.TTY)
}

func (f *fleet) queueNames() []string {
	f.t.Helper()
	var items []struct {
		Name    string `json:"name"`
		Cooling bool   `json:"cooling"`
	}
	if err := json.Unmarshal([]byte(f.mustSup("queue", "--json")), &items); err != nil {
		f.t.Fatal(err)
	}
	var names []string
	for _, it := range items {
		n := it.Name
		if it.Cooling {
			n += "*"
		}
		names = append(names, n)
	}
	return names
}

func wantNames(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("queue %v, want %v", got, want)
	}
}

// AS-2: A stops, then B stops → head is A → after A progresses, next lands
// on B. next prints what it did and moves only the named client.
func TestE2EFIFONext(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	pa, pb := f.start("alpha"), f.start("beta")
	f.stuck("alpha")
	f.stuck("beta")
	wantNames(t, f.queueNames(), "alpha", "beta")
	out := f.next()
	if got := f.clientPane(); got != pa || !strings.Contains(out, pa) || !strings.Contains(out, "alpha") {
		t.Fatalf("next printed %q and left the client on %s, want alpha's %s", out, got, pa)
	}
	f.hook("alpha", "UserPromptSubmit")
	wantNames(t, f.queueNames(), "beta")
	f.next()
	f.wantClientOn(pb, "next after alpha progressed")
	// An empty queue moves nothing.
	f.hook("beta", "UserPromptSubmit")
	if out := f.next(); !strings.Contains(out, "nothing waits on you") || f.clientPane() != pb {
		t.Fatalf("next on an empty queue printed %q, client on %s", out, f.clientPane())
	}
}

// next outside tmux prints the head's pane and fails.
func TestE2ENextWithoutTmux(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	pa := f.start("alpha")
	f.stuck("alpha")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + f.dir}
	for k, v := range f.env {
		env = append(env, k+"="+v)
	}
	out, err := f.supEnv(env, "next")
	if err == nil || strings.TrimSpace(out) != pa || !strings.Contains(err.Error(), "not inside tmux") {
		t.Fatalf("next without tmux: out %q err %v; want the pane %s and a failure", out, err, pa)
	}
}

// AS-5: queue [A, B]: skip A → client on B, A at the tail cooling; B
// progresses → the queue presents as empty while A cools; after the
// cooldown A is head again.
func TestE2ESkipCooldown(t *testing.T) {
	t.Parallel()
	// 15 s: the steps below ran past an 8 s cooldown on a loaded run.
	f := newFleet(t, "queue: {skip_cooldown: 15s}\n")
	pa, pb := f.start("alpha"), f.start("beta")
	f.stuck("alpha")
	f.stuck("beta")
	f.mustSup("skip", "--client", f.client.TTY)
	f.wantClientOn(pb, "after skipping alpha")
	wantNames(t, f.queueNames(), "beta", "alpha*")
	f.hook("beta", "UserPromptSubmit")
	wantNames(t, f.queueNames(), "alpha*")
	if out := f.next(); !strings.Contains(out, "1 skipped") || f.clientPane() != pb {
		t.Fatalf("next while alpha cools: %q, client on %s (want it left on beta)", out, f.clientPane())
	}
	if out := f.mustSup("status-line"); strings.TrimSpace(out) != "" {
		t.Fatalf("status-line while only a skipped session waits: %q, want empty", out)
	}
	testutil.WaitUntil(t, 30*time.Second, "alpha's cooldown to end", func() bool {
		return strings.Join(f.queueNames(), " ") == "alpha"
	})
	if out := f.mustSup("status-line"); strings.TrimSpace(out) != "⚠ 1 stuck · next: alpha" {
		t.Fatalf("status-line %q", out)
	}
	f.next()
	f.wantClientOn(pa, "next after the cooldown")
}

// AS-6: while the human types in a pane that is not the head, sessions
// getting stuck and resolving never move the client.
func TestE2ENoFocusStealing(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	f.start("alpha")
	pb := f.start("beta")
	f.tm.Run("select-window", "-t", pb)
	testutil.WaitUntil(t, 20*time.Second, "the client to show beta", func() bool { return f.clientPane() == pb })
	f.stuck("alpha")
	f.tm.SendLiteral(pb, "typing away")
	f.hook("alpha", "UserPromptSubmit")
	f.stuck("alpha")
	f.mustSup("queue")
	f.mustSup("ls")
	f.mustSup("status-line")
	f.tm.SendKeys(pb, "Enter")
	f.tm.WaitFor(t, pb, "got: typing away", 5*time.Second)
	f.wantClientOn(pb, "while the human typed")
}

// AS-4 and AS-7: a supervisor killed while stuck leaves the queue and its
// socket is cleaned; a new session in the same pane is the one navigation
// targets.
func TestE2EKilledAndReusedPane(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	pa := f.start("alpha")
	f.stuck("alpha")
	old := f.session("alpha")
	if err := syscall.Kill(old.State.SupPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Until the kernel has closed a dying process's files its socket may
	// still accept; the broker reports that as an unanswered socket, and
	// a later call finds it refused and cleans it.
	testutil.WaitUntil(t, 10*time.Second, "the killed supervisor to leave the queue and its socket to be cleaned", func() bool {
		_, err := os.Stat(old.Socket)
		return len(f.queueNames()) == 0 && os.IsNotExist(err)
	})
	// The same pane, a new supervisor for another document.
	doc := f.write("gamma.md", "# gamma\n")
	if _, err := f.tm.Run("respawn-pane", "-k", "-t", pa, testutil.ShellCommand(f.env, f.bins.Sup, "start", doc, "--", "fakeagent", "-echo")); err != nil {
		t.Fatal(err)
	}
	f.tm.WaitForScreen(t, pa, "fakeagent ready", 10*time.Second)
	f.stuck("gamma")
	wantNames(t, f.queueNames(), "gamma")
	f.next()
	f.wantClientOn(pa, "next to the reused pane")
}

// sup pick in a real pty (a tmux pane): the queue with a live preview of
// the selected session's screen; s skips, Enter jumps, q quits.
func TestE2EPick(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	f.start("alpha")
	pb := f.start("beta")
	f.stuck("alpha")
	f.stuck("beta")
	p := f.pick("> alpha")
	// The preview is alpha's screen, from its supervisor's screen model.
	f.tm.WaitForScreen(t, p, "fakeagent ready", 10*time.Second)
	f.tm.SendKeys(p, "s")
	f.tm.WaitForScreen(t, p, "skipped alpha", 10*time.Second)
	f.tm.WaitForScreen(t, p, "> beta", 10*time.Second)
	f.tm.SendKeys(p, "q")
	testutil.WaitUntil(t, 10*time.Second, "pick to quit on q", func() bool { return f.tm.PaneDead(p) })
	wantNames(t, f.queueNames(), "beta", "alpha*")

	p = f.pick("> beta")
	f.tm.SendKeys(p, "Enter")
	testutil.WaitUntil(t, 10*time.Second, "the client to land on beta", func() bool { return f.clientPane() == pb })
}

// pick runs sup pick in a new window and waits for want on its screen.
func (f *fleet) pick(want string) string {
	f.t.Helper()
	p := f.tm.NewWindowDir(f.dir, f.env, f.bins.Sup, "pick", "--client", f.client.TTY)
	f.tm.WaitForScreen(f.t, p, want, 10*time.Second)
	return p
}

// The key bindings of sup tmux-keys, pressed on the human's client:
// prefix+Tab jumps to the head, prefix+S skips it and jumps to the next.
func TestE2EKeyBindings(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	pa, pb := f.start("alpha"), f.start("beta")
	keys := f.write("keys.conf", f.mustSup("tmux-keys"))
	// The bindings run sup through run-shell, in the server's environment.
	for k, v := range f.env {
		if _, err := f.tm.Run("set-environment", "-g", k, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.tm.Run("source-file", keys); err != nil {
		t.Fatal(err)
	}
	f.stuck("alpha")
	f.stuck("beta")
	f.client.Type(t, "\x02\t")
	testutil.WaitUntil(t, 10*time.Second, "prefix+Tab to land on alpha", func() bool { return f.clientPane() == pa })
	f.client.Type(t, "\x02S")
	testutil.WaitUntil(t, 10*time.Second, "prefix+S to land on beta", func() bool { return f.clientPane() == pb })
	wantNames(t, f.queueNames(), "beta", "alpha*")
}

// FollowAll merges every supervisor's events and picks up a supervisor
// that starts after it.
func TestE2EFollowAll(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	f.start("alpha")
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan broker.SessionEvent, 100)
	done := make(chan error, 1)
	go func() {
		done <- broker.FollowAll(ctx, f.env["SUP_RUNTIME_DIR"], 100*time.Millisecond, func(ev broker.SessionEvent) { events <- ev })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	f.start("beta")
	// Both stuck, again and again until both streams have shown it: the
	// beta stream may start after beta's first activity event.
	seen := map[string]bool{}
	deadline := time.After(20 * time.Second)
	for !seen["alpha"] || !seen["beta"] {
		f.hook("alpha", "UserPromptSubmit")
		f.hook("beta", "UserPromptSubmit")
		f.stuck("alpha")
		f.stuck("beta")
	drain:
		for {
			select {
			case ev := <-events:
				if ev.Event == "activity" && ev.Data["activity"] == "ready" {
					seen[ev.Name] = true
				}
			case <-deadline:
				t.Fatalf("activity events seen from %v, want alpha and beta", seen)
			case <-time.After(300 * time.Millisecond):
				break drain
			}
		}
	}
}
