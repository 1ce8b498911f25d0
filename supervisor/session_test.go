//go:build linux

package supervisor

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
)

// The in-process rig: a real Session and its trigger desk running the
// fakeagent behind a real pty, with the session's own terminal a pty pair
// from pty.Open whose master plays the tmux pane (the operator types into
// it; the session's output is drained from it). No tmux, no socket, no sup
// binary: the paths end-to-end tests reach, at unit-test cost.

// sessionConfig shortens the trigger policy's windows; the marker is what
// fakeagent -ack prints.
const sessionConfig = `activity: {quiet_window: 400ms}
trigger:
  recheck: 50ms
  ack_timeout: 3s
  retry_backoff: 100ms
  ack_marker: "ACK_TRIGGER:{id}"
`

type sessionRig struct {
	t      *testing.T
	s      *Session
	pane   *os.File // the master of the session's terminal: what tmux would hold
	out    testutil.Buffer
	record string // every byte the agent read

	mu     sync.Mutex
	events []ipc.TriggerEvent // "trigger" events
}

// newSessionRig starts a session whose profile is the built-in shell one
// (no screen rules: the pty's foreground process says ready or busy) with
// the trigger envelope on and a short busy window, overlaid with profile,
// running the fakeagent with args plus -raw and -record.
func newSessionRig(t *testing.T, profile string, args ...string) *sessionRig {
	t.Helper()
	fake := testutil.FakeAgent(t)
	dir := t.TempDir()
	r := &sessionRig{t: t, record: filepath.Join(dir, "record")}
	for path, content := range map[string]string{
		"config/sup/config.yaml":         sessionConfig,
		"config/sup/profiles/shell.yaml": "envelope: true\nbusy_window: 100ms\n" + profile,
		"doc.md":                         "# in-process session\n",
	} {
		path = filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o := plan.Options{
		Document: "doc.md", Profile: "shell", InvocationDir: dir,
		Command: append([]string{fake, "-raw", "-record", r.record}, args...),
		Environ: []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
			"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
			"GORACE=" + os.Getenv("GORACE")}, // testutil's: no second of sleep at fakeagent's exit
	}
	pl, err := plan.Resolve(o)
	if err != nil {
		t.Fatal(err)
	}
	pane, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	size := pty.Winsize{Rows: 24, Cols: 80}
	if err := pty.Setsize(pane, &size); err != nil {
		t.Fatal(err)
	}
	r.pane = pane
	go io.Copy(&r.out, pane) // Best effort: drained until the pane closes.
	logFile, err := os.Create(filepath.Join(dir, "session.log"))
	if err != nil {
		t.Fatal(err)
	}
	r.s = NewSession(pl, o, tty, tty, size, slog.New(slog.NewTextHandler(logFile, nil)))
	r.s.SetPublisher(func(event string, data any) {
		if ev, ok := data.(ipc.TriggerEvent); ok {
			r.mu.Lock()
			r.events = append(r.events, ev)
			r.mu.Unlock()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		if _, err := r.s.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ran:
		case <-time.After(15 * time.Second):
			t.Errorf("the session did not end within 15s of its context")
		}
		tty.Close()
		pane.Close()
		logFile.Close()
		if t.Failed() {
			log, _ := os.ReadFile(logFile.Name()) // Best effort: for the failure report.
			t.Logf("session log:\n%s\npane:\n%q", log, r.out.String())
		}
	})
	// The shell profile reads ready from the pty's foreground process at
	// once; the fakeagent reads its input only once it says so.
	testutil.WaitUntil(t, 10*time.Second, "the agent to be ready", func() bool {
		return r.s.current() != nil && strings.Contains(r.out.String(), "fakeagent ready")
	})
	return r
}

func (r *sessionRig) recorded() string {
	data, _ := os.ReadFile(r.record) // Best effort: absent until the first byte.
	return string(data)
}

// trigger hands p to the desk as the `trigger` method would.
func (r *sessionRig) trigger(p ipc.TriggerParams) ipc.TriggerResult {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := r.s.desk.Trigger(ctx, p)
	if err != nil {
		r.t.Fatalf("trigger %s: %v", p.TriggerID, err)
	}
	return res
}

// outcome waits for the trigger event of id.
func (r *sessionRig) outcome(id string, timeout time.Duration) ipc.TriggerEvent {
	r.t.Helper()
	var ev ipc.TriggerEvent
	testutil.WaitUntil(r.t, timeout, "the outcome of "+id, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, e := range r.events {
			if e.TriggerID == id {
				ev = e
				return true
			}
		}
		return false
	})
	return ev
}

// TestSessionTriggerPasteThenEnter: a trigger reaches the agent as one
// write of its envelope and, a submit delay later, a separate "\r" — never
// an Enter inside the paste, which agents read as a newline.
func TestSessionTriggerPasteThenEnter(t *testing.T) {
	t.Parallel()
	r := newSessionRig(t, "submit_delay: 400ms\n", "-ack")
	done := make(chan ipc.TriggerResult, 1)
	go func() { done <- r.trigger(ipc.TriggerParams{TriggerID: "t1", Prompt: "run the tests", Wait: true}) }()
	testutil.WaitUntil(t, 20*time.Second, "the pasted envelope", func() bool {
		return strings.Contains(r.recorded(), "[BRIDGE_TRIGGER id=t1")
	})
	if got := r.recorded(); strings.Contains(got, "\r") {
		t.Fatalf("the Enter came with the paste, not after the submit delay: %q", got)
	}
	var res ipc.TriggerResult
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no outcome within 10s")
	}
	if res.Result != ipc.OutcomeDelivered || res.AckedBy != "marker" || res.Attempts != 1 {
		t.Fatalf("result %+v, want delivered, acked by the marker, in one attempt", res)
	}
	got := r.recorded()
	if strings.Count(got, "\r") != 1 || !strings.HasSuffix(got, "\r") {
		t.Fatalf("the agent read %q, want the envelope then one \\r", got)
	}
}

// TestSessionTriggerDeferredWhileTyping: keys from the operator defer a
// trigger (OPERATOR_BUSY) until the quiet window has passed; then it is
// delivered after what the operator typed.
func TestSessionTriggerDeferredWhileTyping(t *testing.T) {
	t.Parallel()
	r := newSessionRig(t, "", "-ack")
	if _, err := r.pane.WriteString("x"); err != nil {
		t.Fatal(err)
	}
	testutil.WaitUntil(t, 20*time.Second, "the key to reach the agent", func() bool { return r.recorded() == "x" })
	res := r.trigger(ipc.TriggerParams{TriggerID: "t2", Prompt: "after the human"})
	if res.Result != ipc.OutcomeDeferred || res.ErrorCode != ipc.CodeOperatorBusy {
		t.Fatalf("while the operator types: %+v, want deferred OPERATOR_BUSY", res)
	}
	if ev := r.outcome("t2", 10*time.Second); ev.Result != ipc.OutcomeDelivered {
		t.Fatalf("after the quiet window: %v, want delivered", ev)
	}
	if got := r.recorded(); !strings.HasPrefix(got, "x[BRIDGE_TRIGGER id=t2") {
		t.Fatalf("the agent read %q, want the key, then the trigger", got)
	}
}

// TestSessionRestartCancelsDelivery: a delivery waiting for its
// acknowledgement ends TRIGGER_CANCELLED when the child it was written to
// is restarted; it is never typed into the successor.
func TestSessionRestartCancelsDelivery(t *testing.T) {
	t.Parallel()
	// No -ack, and a screen rule that reads the agent as ready for good
	// instead of the foreground process: nothing acknowledges the
	// trigger. (With the foreground rule, the dying child's last moments
	// can read as busy, which counts as an acknowledgement by activity.)
	r := newSessionRig(t, "classify:\n  rules: [{name: up, activity: ready, reason: idle, screen: 'fakeagent ready'}]\n")
	testutil.WaitUntil(t, 10*time.Second, "the screen rule to say ready", func() bool {
		return r.s.State().Activity == "ready"
	})
	res := r.trigger(ipc.TriggerParams{TriggerID: "t3", Prompt: "lost in the restart"})
	if res.Result != ipc.OutcomeAccepted {
		t.Fatalf("trigger: %+v, want accepted", res)
	}
	testutil.WaitUntil(t, 20*time.Second, "the write", func() bool { return strings.Contains(r.recorded(), "id=t3") })
	old := r.s.current()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := restartResult(r.s.ask(ctx, control{kind: ctrlRestart, fresh: true})); err != nil {
		t.Fatal(err)
	}
	ev := r.outcome("t3", 10*time.Second)
	if ev.Result != ipc.OutcomeFailed || ev.ErrorCode != ipc.CodeTriggerCancelled {
		t.Fatalf("outcome %v, want failed TRIGGER_CANCELLED", ev)
	}
	if c := r.s.current(); c == nil || c == old {
		t.Fatalf("no new child after the restart")
	}
	if n := strings.Count(r.recorded(), "id=t3"); n != 1 {
		t.Fatalf("the trigger was written %d times, want once (never into the successor)", n)
	}
	// The audit trail has its one line, cancelled.
	audit := filepath.Join(filepath.Dir(r.record), "state", "sup", "audit.jsonl")
	var line map[string]any
	testutil.WaitUntil(t, 20*time.Second, "the audit line", func() bool {
		data, _ := os.ReadFile(audit) // Best effort: absent until written.
		return json.Unmarshal(data, &line) == nil
	})
	if line["trigger_id"] != "t3" || line["error_code"] != string(ipc.CodeTriggerCancelled) {
		t.Fatalf("audit %v, want one TRIGGER_CANCELLED line for t3", line)
	}
}

// TestSessionTriggerRepeat: a trigger id already delivered answers its
// first outcome, marked repeat, and is not typed again.
func TestSessionTriggerRepeat(t *testing.T) {
	t.Parallel()
	r := newSessionRig(t, "", "-ack")
	p := ipc.TriggerParams{TriggerID: "t4", Prompt: "only once", Wait: true}
	first := r.trigger(p)
	if first.Result != ipc.OutcomeDelivered {
		t.Fatalf("first: %+v, want delivered", first)
	}
	again := r.trigger(p)
	if !again.Repeat || again.Result != first.Result || again.DeliveredAt != first.DeliveredAt {
		t.Fatalf("repeat: %+v, want the first outcome %+v marked repeat", again, first)
	}
	if n := strings.Count(r.recorded(), "id=t4"); n != 1 {
		t.Fatalf("the agent read the trigger %d times, want once", n)
	}
}

// TestUnitCrashSummary: the last non-blank screen line, joined with the
// full-width rows it wrapped from.
func TestUnitCrashSummary(t *testing.T) {
	t.Parallel()
	lines := []string{"starting", "reason:", "addrinfo ENOTFOUND a", "pi.example.com", "", ""}
	if got := crashSummary("exit 1 (transient)", lines, 20); got != "exit 1 (transient): addrinfo ENOTFOUND api.example.com" {
		t.Fatalf("wrapped: %q", got)
	}
	if got := crashSummary("exit 1 (transient)", []string{"", " "}, 20); got != "exit 1 (transient)" {
		t.Fatalf("blank screen: %q", got)
	}
	if got := crashSummary("SIGSEGV (flapping)", []string{"boom\x1b]52;c;x\x07"}, 80); strings.ContainsRune(got, 0x1b) {
		t.Fatalf("control bytes kept: %q", got)
	}
}

// TestSessionRestartKeepsStartedPlan: an agent that rewrites its own
// document's frontmatter (a new name, workspace, role, cwd, env) and then
// restarts itself runs on as the session `sup start` resolved; the change
// is logged with how to apply it (stop, then start).
func TestSessionRestartKeepsStartedPlan(t *testing.T) {
	t.Parallel()
	r := newSessionRig(t, "")
	before := *r.s.Plan()
	dir := filepath.Dir(r.record)
	if err := os.Mkdir(filepath.Join(dir, "elsewhere"), 0o700); err != nil {
		t.Fatal(err)
	}
	planted := "---\nsup:\n  name: coordinator\n  workspace: w2\n  role: lead\n  cwd: elsewhere\n  env: {PLANTED: \"yes\"}\n---\n# relabelled\n"
	if err := os.WriteFile(before.Document, []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	r.restartFresh(t)
	after := r.s.Plan()
	if after.Name != before.Name || after.Workspace != before.Workspace || after.Role != before.Role ||
		after.CWD != before.CWD || !slices.Equal(after.Command, before.Command) || after.Profile.Name != before.Profile.Name {
		t.Fatalf("after the restart: name %q workspace %q role %q cwd %q profile %q command %q; want the started %q %q %q %q %q %q",
			after.Name, after.Workspace, after.Role, after.CWD, after.Profile.Name, after.Command,
			before.Name, before.Workspace, before.Role, before.CWD, before.Profile.Name, before.Command)
	}
	if v := plan.EnvNames(after.Env); slices.Contains(v, "PLANTED") {
		t.Fatalf("the planted variable reached the plan: %v", v)
	}
	if st := r.s.State(); st.Name != before.Name || st.Workspace != before.Workspace {
		t.Fatalf("state names %q in %q, want %q in %q", st.Name, st.Workspace, before.Name, before.Workspace)
	}
	testutil.WaitUntil(t, 20*time.Second, "the frontmatter_changed log line", func() bool {
		log, _ := os.ReadFile(filepath.Join(dir, "session.log")) // Best effort: polled.
		return strings.Contains(string(log), "msg=frontmatter_changed") && strings.Contains(string(log), "sup stop, then sup start")
	})
}

// restartFresh restarts the session's agent fresh, as `sup restart
// --fresh` does, and waits for the new child.
func (r *sessionRig) restartFresh(t *testing.T) {
	t.Helper()
	old := r.s.current()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := restartResult(r.s.ask(ctx, control{kind: ctrlRestart, fresh: true})); err != nil {
		t.Fatal(err)
	}
	testutil.WaitUntil(t, 10*time.Second, "the new child", func() bool {
		c := r.s.current()
		return c != nil && c != old
	})
}

// TestSessionRestartDocumentSwappedForFIFO: the agent replaces its
// document with a FIFO nobody writes: the respawn does not hang reading
// it (it is only read to log a change), it logs that the frontmatter is
// unreadable and runs the started plan.
func TestSessionRestartDocumentSwappedForFIFO(t *testing.T) {
	t.Parallel()
	r := newSessionRig(t, "")
	doc := r.s.Plan().Document
	if err := os.Remove(doc); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(doc, 0o600); err != nil {
		t.Fatal(err)
	}
	r.restartFresh(t)
	log, _ := os.ReadFile(filepath.Join(filepath.Dir(r.record), "session.log")) // Best effort: checked below.
	if !strings.Contains(string(log), "msg=frontmatter_unreadable") || !strings.Contains(string(log), "not a regular file") {
		t.Fatalf("no frontmatter_unreadable line naming the FIFO:\n%s", log)
	}
}

// TestUnitCrashPresent: between runs of a crash loop (restarting, halted)
// the session reads error whatever the screen showed — sup's own
// countdown is output, and a new user's crash-looping program read busy —
// waiting since the episode began, with the crash as reason and summary;
// once its agent runs again (crashed) the agent's own activity stands.
func TestUnitCrashPresent(t *testing.T) {
	t.Parallel()
	at := time.Unix(1000, 0)
	var a agentFacts
	busy := activity.State{Activity: activity.Busy, Reason: "output"}
	if got := a.present(busy); got.Activity != activity.Busy || got.Stuck {
		t.Fatalf("no episode: %+v", got)
	}
	a.crashed(at, "restarting", "exit 1 (transient): boom")
	got := a.present(busy)
	if got.Activity != activity.Error || !got.Stuck || !got.WaitingSince.Equal(at) || got.Reason != "restarting" || got.Summary != "exit 1 (transient): boom" {
		t.Fatalf("restarting: %+v", got)
	}
	a.crashRespawned()
	if got := a.present(busy); got.Activity != activity.Busy {
		t.Fatalf("its agent runs again: %+v, want its own activity (busy)", got)
	}
}
