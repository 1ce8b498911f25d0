//go:build linux

package broker_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// remoteHook tells a remote session's supervisor an agent hook fired,
// through its host's relay (`sup relay --session`), as the broker reaches
// any remote session.
func (r *remoteHost) hook(name, event string) {
	r.t.Helper()
	var s broker.Listing
	for _, x := range r.sessions() {
		if x.State.Name == name {
			s = x
		}
	}
	if s.State.SessionID == "" {
		r.t.Fatalf("no remote session %s", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hc, err := r.ssh().DialHost(ctx, r.hostEntry(), s.State.SessionID)
	if err != nil {
		r.t.Fatal(err)
	}
	defer hc.Close()
	p := ipc.HookParams{Agent: "claude", Event: event, SessionID: "conv-" + name, Message: name + " is done"}
	if err := hc.Client.Call(ctx, ipc.MethodHook, p, nil); err != nil {
		r.t.Fatal(hc.Explain(err))
	}
	time.Sleep(5 * time.Millisecond)
}

// supTimed runs a broker verb and returns stdout, stderr and how long it
// took.
func (f *fleet) supTimed(args ...string) (string, string, time.Duration, error) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.bins.Sup, args...)
	cmd.Env, cmd.Dir = f.Environ(), f.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	return out.String(), errb.String(), time.Since(start), err
}

// Two "hosts" (this user, and a second user behind a real sshd), plus a
// host that accepts and never answers and one that refuses the key: the
// queue spans the two in one FIFO order within the per-host deadline and
// names the failures; a trigger to remote:name is delivered and audited
// on the remote side, naming the origin host.
func TestE2EHostsQueueAndTrigger(t *testing.T) {
	f := newFleet(t, "")
	r := newRemoteHost(t, f.Rig)
	f.write("config/sup/config.yaml", r.hostsConfig())

	f.start("alpha")
	charliePane := f.start("charlie")
	bravoPane := r.start("bravo")
	r.start("delta")
	f.stuck("alpha")
	r.hook("bravo", "Stop")
	f.stuck("charlie")

	out, stderr, took, err := f.supTimed("queue", "--json")
	if err != nil {
		t.Fatalf("sup queue: %v: %s", err, stderr)
	}
	var items []struct {
		Name     string `json:"name"`
		Host     string `json:"host"`
		Position int    `json:"position"`
	}
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	local := broker.LocalHostName()
	var got []string
	for _, it := range items {
		got = append(got, it.Host+":"+it.Name)
	}
	if want := []string{local + ":alpha", "remote:bravo", local + ":charlie"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("queue %v, want %v (stderr %s)", got, want, stderr)
	}
	for _, w := range []string{"host wrongkey: auth failed", "host blackhole: unreachable: no answer within", "host oldsup: version mismatch"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q: want %q", stderr, w)
		}
	}
	// The blackhole costs its deadline (4 s), never more.
	if took > 4*time.Second+3*time.Second {
		t.Errorf("sup queue took %s with a host that never answers; the per-host deadline is 4s", took)
	}
	t.Logf("sup queue over 3 hosts (one blackholed, one refusing the key): %s", took)

	text, _, _, err := f.supTimed("queue", "--host", "remote")
	if err != nil || !strings.Contains(text, "HOST") || !strings.Contains(text, "remote") || strings.Contains(text, "alpha") {
		t.Fatalf("sup queue --host remote: %v\n%s", err, text)
	}

	// metrics labels every session with its host and says which answered.
	prom, _, _, err := f.supTimed("metrics")
	for _, w := range []string{`sup_host_up{host="remote"} 1`, `sup_host_up{host="wrongkey"} 0`, `sup_host_up{host="` + local + `"} 1`,
		`sup_session_waiting_seconds{host="remote",session="`, `sup_queue_length 3`} {
		if err != nil || !strings.Contains(prom, w) {
			t.Fatalf("sup metrics (%v): no %q in\n%s", err, w, prom)
		}
	}

	// The status line reads the cache the queue left: no network.
	line, _, _, err := f.supTimed("status-line")
	if err != nil || !strings.Contains(line, "3 stuck") {
		t.Fatalf("status-line %q, %v: want the remote part counted", line, err)
	}

	// A trigger to remote:bravo goes through the relay; the remote
	// supervisor delivers it and writes the audit line.
	out, stderr, _, err = f.supTimed("trigger", "--id", "t-remote-1", "remote:bravo", "hello from afar")
	if err != nil || !strings.Contains(out, "delivered t-remote-1 to bravo") {
		t.Fatalf("sup trigger remote:bravo: %v: %s %s", err, out, stderr)
	}
	audit, err := os.ReadFile(r.auditFile())
	if err != nil {
		t.Fatal(err)
	}
	var line1 map[string]any
	for _, l := range strings.Split(string(audit), "\n") {
		if strings.Contains(l, `"t-remote-1"`) && strings.Contains(l, "delivered") {
			json.Unmarshal([]byte(l), &line1)
		}
	}
	if req, _ := line1["requester"].(string); !strings.HasSuffix(req, "@"+local) {
		t.Fatalf("remote audit line %v: want the requester to name the origin host %s\n%s", line1, local, audit)
	}

	// alpha progresses: the head is remote:bravo. next opens a local
	// window running ssh into the remote tmux, on bravo's pane, and the
	// human's client shows it; a second next reuses the window.
	f.hook("alpha", "UserPromptSubmit")
	out, err = f.sup("next", "--client", f.client.TTY)
	if err != nil || !strings.Contains(out, "bravo") {
		t.Fatalf("sup next on a remote head: %v: %s", err, out)
	}
	win, err := f.tm.Run("display-message", "-p", "-t", f.clientPane(), "#{window_name} #{window_id}")
	if err != nil || !strings.HasPrefix(win, "remote:bravo ") {
		t.Fatalf("the client shows window %q (%v), want remote:bravo", win, err)
	}
	// The remote pane's own first line (its agent's pid) shows locally.
	first, _, _ := strings.Cut(r.runAs("tmux", "-L", r.tmux, "capture-pane", "-p", "-t", bravoPane), "\n")
	f.tm.WaitFor(t, f.clientPane(), first, 20*time.Second)
	f.mustSup("next", "--client", f.client.TTY)
	again, _ := f.tm.Run("display-message", "-p", "-t", f.clientPane(), "#{window_name} #{window_id}")
	if again != win {
		t.Fatalf("second next on the remote head shows %q, want the same window %q", again, win)
	}

	// skip passes over the remote head through its relay: the client
	// lands on the next one, charlie, here.
	if out, err := f.sup("skip", "--client", f.client.TTY); err != nil || !strings.Contains(out, "charlie") {
		t.Fatalf("sup skip of the remote head: %v: %s", err, out)
	}
	f.wantClientOn(charliePane, "skip of remote:bravo")

	// route --host runs the host's own route: a session that does not run
	// there is started there (in its user's tmux) and triggered.
	r.write(".config/sup/profiles/fake.yaml", "command: ["+r.bin+"/fakeagent, -raw, -ack]\n"+
		"classify:\n  rules:\n    - {name: prompt, activity: ready, reason: idle, screen: 'fakeagent ready'}\n")
	echoDoc := r.write("echo.md", "---\nsup: {profile: fake, workspace: far, role: echo}\n---\n# echo\n")
	out, stderr, _, err = f.supTimed("route", "--host", "remote", "--role", "echo", "--doc", echoDoc, "--id", "t-route-1", "routed from afar")
	if err != nil || !strings.Contains(out, "delivered") {
		t.Fatalf("sup route --host remote: %v: %s %s", err, out, stderr)
	}
	if audit, _ := os.ReadFile(r.auditFile()); !strings.Contains(string(audit), `"step":"spawn"`) || !strings.Contains(string(audit), "t-route-1") {
		t.Fatalf("remote audit has no spawn of the routed session:\n%s", audit)
	}

	// A bare name that exists on one host only needs no host.
	if out, _, _, err := f.supTimed("state", "delta"); err != nil || !strings.Contains(out, "delta") {
		t.Fatalf("sup state delta: %v %s", err, out)
	}
}

// `sup events --all` across hosts: the relay is killed mid-stream, ssh
// and the relay are started again, and the remote session's events carry
// on with no seq twice and none missing.
func TestE2EHostsEventsSurviveRelayKill(t *testing.T) {
	f := newFleet(t, "")
	r := newRemoteHost(t, f.Rig)
	f.write("config/sup/config.yaml", fmt.Sprintf("hosts:\n  - {name: remote, ssh: remote, sup: %s}\n", r.bin+"/sup"))
	r.start("bravo")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, f.bins.Sup, "events", "--all", "--host", "remote")
	cmd.Env, cmd.Dir = f.Environ(), f.dir
	stdout, _ := cmd.StdoutPipe()
	stderr := &testutil.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	var (
		mu     sync.Mutex
		events []broker.SessionEvent
	)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev broker.SessionEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				mu.Lock()
				events = append(events, ev)
				mu.Unlock()
			}
		}
	}()
	seen := func(summary string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range events {
			if ev.Event == "activity" && ev.Data["summary"] == summary {
				return true
			}
		}
		return false
	}
	// The follower is up once a hook's activity comes through.
	testutil.WaitUntil(t, 20*time.Second, "the first remote events", func() bool {
		r.hook("bravo", "UserPromptSubmit")
		r.hook("bravo", "Stop")
		return seen("bravo is done")
	})

	relays := relayPIDs(r.uid)
	if len(relays) != 1 {
		t.Fatalf("relay processes %v, want one", relays)
	}
	syscall.Kill(relays[0], syscall.SIGKILL)
	// Events while no relay runs: the supervisor buffers them.
	r.hook("bravo", "UserPromptSubmit")
	r.hook("bravo", "Stop")
	testutil.WaitUntil(t, 20*time.Second, "a new relay", func() bool {
		p := relayPIDs(r.uid)
		return len(p) == 1 && p[0] != relays[0]
	})
	mu.Lock()
	before := len(events)
	mu.Unlock()
	r.hook("bravo", "UserPromptSubmit")
	r.hook("bravo", "Stop")
	testutil.WaitUntil(t, 20*time.Second, "the events after the restart", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range events[before:] {
			if ev.Event == "activity" && ev.Data["activity"] == "ready" {
				return true
			}
		}
		return false
	})
	mu.Lock()
	defer mu.Unlock()
	var seqs []uint64
	for _, ev := range events {
		if ev.Name == "bravo" {
			if ev.Event == "gap" {
				t.Fatalf("a gap event: the supervisor lost events it should have buffered: %+v", ev)
			}
			if ev.Host != "remote" {
				t.Fatalf("event %+v: want host remote", ev)
			}
			seqs = append(seqs, ev.Seq)
		}
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("seqs %v: %d follows %d (want each exactly once, in order)\nstderr: %s", seqs, seqs[i], seqs[i-1], stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "following again") {
		t.Errorf("stderr %q: want the restart reported", stderr.String())
	}
	t.Logf("%d remote events, seq %d..%d, across a relay restart", len(seqs), seqs[0], seqs[len(seqs)-1])
}

// relayPIDs are uid's `sup relay` processes that serve the fan-out (not
// the --session pipes).
func relayPIDs(uid int) []int {
	var out []int
	for _, pid := range userPIDs(uid) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) >= 2 && strings.HasSuffix(args[0], "/sup") && args[1] == "relay" && !strings.Contains(string(b), "--session") {
			out = append(out, pid)
		}
	}
	return out
}
