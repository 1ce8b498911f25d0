//go:build linux

package supervisor_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// environ is the test's environment plus the rig's private directories.
func (r *rig) environ() []string { return r.Environ() }

// sup runs a sup client verb with the rig's environment.
func (r *rig) sup(args ...string) (string, error) {
	r.t.Helper()
	return r.Sup(nil, args...)
}

func (r *rig) mustSup(args ...string) string {
	r.t.Helper()
	out, err := r.sup(args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// state asks the session called name for its state over its socket, in
// the test process: tests poll it, and a `sup state` process per look was
// most of the race-built processes the package started (issue 29). The
// verb's own output is specified where it is tested (cmd/sup's scripts,
// TestE2ESocketInjectRestartStop).
func (r *rig) state(name string) ipc.State {
	r.t.Helper()
	return ipctest.State(r.t, r.Socket(name))
}

// tryState is state for a poll that may start before the session is up:
// false until its socket answers.
func (r *rig) tryState(name string) (ipc.State, bool) {
	var st ipc.State
	sock, ok := r.LookupSocket(name)
	return st, ok && ipctest.TryCall(sock, ipc.MethodState, nil, &st) == nil
}

// stateVerb is `sup state --json TARGET` itself, any kind of target.
func (r *rig) stateVerb(target string) ipc.State {
	r.t.Helper()
	var st ipc.State
	if err := json.Unmarshal([]byte(r.mustSup("state", "--json", target)), &st); err != nil {
		r.t.Fatal(err)
	}
	return st
}

func (r *rig) sockets() []string { return r.Sockets() }

func TestE2ESocketInjectRestartStop(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	pane := r.start("-echo")
	st := r.stateVerb("doc")
	if st.Lifecycle != "running" || st.PID == 0 || st.Activity != "unknown" || st.CWDSource != "document_dir" {
		t.Fatalf("state = %+v", st)
	}
	if len(r.sockets()) != 1 {
		t.Fatalf("sockets = %v, want one", r.sockets())
	}
	info, err := os.Stat(r.sockets()[0])
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode = %v (%v), want 0600", info.Mode(), err)
	}

	r.mustSup("inject", "doc", "typed through the socket")
	r.tm.WaitFor(t, pane, "got: typed through the socket", 5*time.Second)

	// Every kind of TARGET reaches the same session.
	for _, target := range []string{st.SessionID, st.SessionID[:4], "doc", filepath.Join(r.dir, "doc.md"), "doc.md"} {
		if got := r.stateVerb(target).SessionID; got != st.SessionID {
			t.Fatalf("target %q found %s", target, got)
		}
	}

	out := r.mustSup("restart", "--fresh", "doc")
	if !strings.Contains(out, "restarted doc: pid") {
		t.Fatalf("restart said %q", out)
	}
	after := r.state("doc")
	if after.PID == st.PID || after.PID == 0 || after.RestartCount != 1 {
		t.Fatalf("after restart: pid %d (was %d), restarts %d", after.PID, st.PID, after.RestartCount)
	}
	if testutil.ProcessAlive(st.PID) {
		t.Fatalf("old child %d still alive after restart", st.PID)
	}

	r.mustSup("stop", "doc")
	testutil.WaitUntil(t, 20*time.Second, "sup and child to exit", func() bool {
		return !testutil.ProcessAlive(after.SupPID) && !testutil.GroupAlive(after.PID)
	})
	if s := r.sockets(); len(s) != 0 {
		t.Fatalf("sockets left after stop: %v", s)
	}
	if out, _ := r.sup("ls"); strings.Contains(out, st.SessionID) {
		t.Fatalf("ls still lists the stopped session:\n%s", out)
	}
}

func TestE2EEventsShowCrashAndRestart(t *testing.T) {
	t.Parallel()
	r := newRig(t, "crash: {transient_delay: 200ms}\n")
	starts := filepath.Join(r.dir, "starts")
	r.start("-starts", starts)
	first := r.waitStarts(starts, 1)[0]

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bins.Sup, "events", "doc")
	cmd.Dir = r.dir
	cmd.Env = r.environ()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan ipc.Event, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev ipc.Event
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				lines <- ev
			}
		}
		close(lines)
	}()
	// The subscription is live once it reports another client connecting.
	subscribed := false
	for i := 0; i < 50 && !subscribed; i++ {
		r.mustSup("pid", "doc")
		select {
		case ev := <-lines:
			subscribed = ev.Event == "client"
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !subscribed {
		t.Fatal("sup events never showed a client event")
	}
	syscall.Kill(first, syscall.SIGKILL)

	want := []string{"exit", "restart_scheduled", "spawn"}
	var got []string
	var lastSeq uint64
	deadline := time.After(10 * time.Second)
	for len(got) < len(want) {
		select {
		case ev, ok := <-lines:
			if !ok {
				t.Fatalf("events ended early; got %v", got)
			}
			if ev.Seq <= lastSeq || ev.At == 0 {
				t.Fatalf("event %+v: seq must increase and at be set", ev)
			}
			lastSeq = ev.Seq
			if ev.Event != "lifecycle" {
				continue
			}
			phase, _ := ev.Data["phase"].(string)
			if phase == "exit" && ev.Data["signal"] != "SIGKILL" {
				t.Fatalf("exit event %+v: want signal SIGKILL", ev.Data)
			}
			got = append(got, phase)
		case <-deadline:
			t.Fatalf("lifecycle phases so far %v, want %v", got, want)
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lifecycle phases %v, want %v", got, want)
		}
	}
}

// TestE2EStaleSockets: a supervisor killed with SIGKILL leaves its socket;
// the next `sup ls` removes it, and so does the next `sup start`. Live
// sockets are never removed.
func TestE2EStaleSockets(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	killSup := func() (sock string) {
		pane := r.start()
		st := r.state("doc")
		sock = filepath.Join(r.env["SUP_RUNTIME_DIR"], st.SessionID+".sock")
		syscall.Kill(st.SupPID, syscall.SIGKILL)
		// Gone as sup ls tells (ipc.PIDAlive: the whole thread group
		// exited), not only its main thread a zombie: a race-built sup's
		// other threads outlived it beside two busy loops, and ls still
		// listed it (run 76).
		testutil.WaitUntil(t, 20*time.Second, "killed sup to be gone", func() bool { return !ipc.PIDAlive(st.SupPID) })
		if _, err := os.Stat(sock); err != nil {
			t.Fatalf("a SIGKILLed supervisor should leave its socket: %v", err)
		}
		// The pty hangup ends the child too.
		testutil.WaitUntil(t, 20*time.Second, "orphaned child to be gone", func() bool { return !testutil.GroupAlive(st.PID) })
		r.tm.KillPane(pane)
		return sock
	}

	stale := killSup()
	if out := r.mustSup("ls"); strings.Contains(out, "doc") {
		t.Fatalf("ls lists a dead session:\n%s", out)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("sup ls left the stale socket %s (%v)", stale, err)
	}

	stale = killSup()
	r.start() // a live one, which must survive everything below
	testutil.WaitUntil(t, 20*time.Second, "sup start to sweep the stale socket", func() bool {
		_, err := os.Stat(stale)
		return os.IsNotExist(err)
	})
	live := r.sockets()
	if len(live) != 1 {
		t.Fatalf("sockets = %v, want only the live one", live)
	}
	r.mustSup("ls")
	if _, err := ipc.CleanStale(live[0]); err != nil {
		t.Fatal(err)
	}
	if got := r.sockets(); len(got) != 1 || got[0] != live[0] {
		t.Fatalf("live socket removed: %v", got)
	}
	r.state("doc") // and it still answers
}

// TestE2ENodeClient runs a Node.js client written from specs/ipc.md alone
// against a live supervisor.
func TestE2ENodeClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not installed: run .ci/run (apt-get install -y nodejs npm)")
	}
	dir := filepath.Join(testutil.ModuleRoot(t), "ipc", "testdata", "nodeclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@msgpack", "msgpack")); err != nil {
		out, err := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund").CombinedOutput()
		if err != nil {
			t.Fatalf("npm install @msgpack/msgpack (run .ci/run): %v\n%s", err, out)
		}
	}
	r := newRig(t, "")
	pane := r.start("-echo")
	sock := r.sockets()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, filepath.Join(dir, "client.cjs"), sock, "hello from node").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "NODE-CLIENT-OK") {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	r.tm.WaitFor(t, pane, "got: hello from node", 5*time.Second)
}

// TestE2EScreenAndSignals: `screen` is the rendered screen, and `state`
// reports the title and bracketed paste the agent set.
func TestE2EScreenAndSignals(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	pane := r.start("-title", "agent at work", "-bracketed", "-echo")
	r.mustSup("inject", "doc", "visible line")
	r.tm.WaitFor(t, pane, "got: visible line", 5*time.Second)
	testutil.WaitUntil(t, 20*time.Second, "the screen model to show the echo", func() bool {
		return strings.Contains(r.mustSup("screen", "doc"), "got: visible line")
	})
	var sc ipc.ScreenResult
	if err := json.Unmarshal([]byte(r.mustSup("screen", "--json", "doc")), &sc); err != nil {
		t.Fatal(err)
	}
	if sc.Cols != 120 || sc.Rows != 40 || sc.Format != "text" || sc.AltScreen || !strings.HasPrefix(sc.Text, "fakeagent ready") {
		t.Fatalf("screen = %+v", sc)
	}
	// Plain text has no attributes; the ANSI form is still a replayable
	// drawing (CR LF between rows).
	if ansi := r.mustSup("screen", "--ansi", "doc"); !strings.Contains(ansi, "\r\ngot: visible line") {
		t.Fatalf("--ansi output: %q", ansi)
	}
	st := r.state("doc")
	if st.Title != "agent at work" || !st.BracketedPaste || st.LastOutputAt == 0 {
		t.Fatalf("state: title %q bracketed %v last output %d", st.Title, st.BracketedPaste, st.LastOutputAt)
	}
	r.tm.ResizeWindow(pane, 100, 30)
	testutil.WaitUntil(t, 20*time.Second, "the screen model to follow the resize", func() bool {
		var s ipc.ScreenResult
		json.Unmarshal([]byte(r.mustSup("screen", "--json", "doc")), &s)
		return s.Cols == 100 && s.Rows == 30
	})
}
