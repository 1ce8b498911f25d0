//go:build linux

package supervisor_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// triggerConfig shortens the trigger policy's windows so that the tests
// are quick; the marker is what fakeagent -ack prints.
const triggerConfig = `activity: {quiet_window: 1s}
trigger:
  recheck: 100ms
  ack_timeout: 3s
  retry_backoff: 100ms
  ack_marker: "ACK_TRIGGER:{id}"
`

// call makes one request on the rig's only session.
func (r *rig) call(method string, params, result any) error {
	r.t.Helper()
	c, err := ipc.Dial(r.sockets()[0], 2*time.Second)
	if err != nil {
		r.t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return c.Call(ctx, method, params, result)
}

func (r *rig) trigger(p ipc.TriggerParams) ipc.TriggerResult {
	r.t.Helper()
	var res ipc.TriggerResult
	if err := r.call(ipc.MethodTrigger, p, &res); err != nil {
		r.t.Fatalf("trigger %s: %v", p.TriggerID, err)
	}
	return res
}

// audit reads the rig's audit log.
func (r *rig) audit() []map[string]any {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.env["XDG_STATE_HOME"], "sup", "audit.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	var recs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			r.t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		recs = append(recs, m)
	}
	return recs
}

func (r *rig) recorded(file string) string {
	data, _ := os.ReadFile(file) // Best effort: absent until the first byte.
	return string(data)
}

// waitTriggerCount waits until state counts n triggers with outcome.
func (r *rig) waitTriggerCount(outcome string, n int) {
	r.t.Helper()
	testutil.WaitUntil(r.t, 20*time.Second, "triggers "+outcome, func() bool { return r.state("doc").Triggers[outcome] >= n })
}

// TestE2ETriggerPasteByteExact: a multi-line prompt full of escape
// sequences arrives sanitised, in its envelope, as ONE bracketed paste and
// ONE separate submit, is acked by the screen marker, and is audited.
func TestE2ETriggerPasteByteExact(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig)
	rec := filepath.Join(r.dir, "rec")
	r.start("-ready", "-raw", "-bracketed", "-ack", "-record", rec)
	testutil.WaitUntil(t, 20*time.Second, "bracketed paste in state", func() bool { return r.state("doc").BracketedPaste })
	prompt := "line one\nline\x1b[201~ two\r\n\x07end \xff ok"
	res := r.trigger(ipc.TriggerParams{TriggerID: "t-1", ThreadID: "th", Reason: "review", Prompt: prompt, Requester: "test", Wait: true})
	if res.Result != ipc.OutcomeDelivered || res.AckedBy != "marker" || res.Attempts != 1 || res.DeliveredAt == 0 {
		t.Fatalf("result %+v, want delivered by marker in one attempt", res)
	}
	want := "\x1b[200~[BRIDGE_TRIGGER id=t-1 thread=th reason=review]\nline one\nline[201~ two\nend \uFFFD ok\n[/BRIDGE_TRIGGER]\x1b[201~\r"
	if got := r.recorded(rec); got != want {
		t.Fatalf("the agent read\n%q\nwant\n%q", got, want)
	}
	recs := r.audit()
	if len(recs) != 1 {
		t.Fatalf("audit has %d lines, want 1: %v", len(recs), recs)
	}
	a := recs[0]
	if a["trigger_id"] != "t-1" || a["result"] != "delivered" || a["requester"] != "test" || a["collision_gate"] != "enforced" ||
		a["force_override_requested"] != false || a["prompt_bytes"] != float64(len(prompt)) || a["prompt"] != nil || len(a["prompt_sha256"].(string)) != 64 {
		t.Fatalf("audit record %v", a)
	}
	if st := r.state("doc"); st.Triggers["delivered"] != 1 || st.PendingTriggers != 0 {
		t.Fatalf("state triggers %v pending %d", st.Triggers, st.PendingTriggers)
	}
	var m ipc.MetricsResult
	if err := r.call(ipc.MethodMetrics, nil, &m); err != nil {
		t.Fatal(err)
	}
	if m.Counters["trigger_requests_total"] != 1 || m.Counters["trigger_delivered_total"] != 1 || m.Histograms["trigger_latency_ms"].Count != 1 {
		t.Fatalf("metrics %+v", m)
	}
}

// TestE2ETriggerIdempotent: a repeated trigger id gets its first outcome
// and types nothing, also after sup was restarted on the same document.
func TestE2ETriggerIdempotent(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig)
	rec := filepath.Join(r.dir, "rec")
	pane := r.start("-ready", "-raw", "-ack", "-record", rec)
	first := r.trigger(ipc.TriggerParams{TriggerID: "same", Prompt: "once", Wait: true})
	again := r.trigger(ipc.TriggerParams{TriggerID: "same", Prompt: "once", Wait: true})
	if first.Result != ipc.OutcomeDelivered || !again.Repeat || again.Result != first.Result || again.DeliveredAt != first.DeliveredAt {
		t.Fatalf("first %+v, again %+v", first, again)
	}
	r.mustSup("stop", "doc")
	testutil.WaitUntil(t, 10*time.Second, "sup to end", func() bool { return r.tm.PaneDead(pane) || len(r.sockets()) == 0 })
	r.start("-ready", "-raw", "-ack", "-record", rec)
	after := r.trigger(ipc.TriggerParams{TriggerID: "same", Prompt: "once", Wait: true})
	if !after.Repeat || after.Result != ipc.OutcomeDelivered || after.DeliveredAt != first.DeliveredAt {
		t.Fatalf("after a sup restart: %+v, want the first outcome", after)
	}
	if n := strings.Count(r.recorded(rec), "BRIDGE_TRIGGER id=same"); n != 1 {
		t.Fatalf("the agent read the trigger %d times, want 1", n)
	}
	if n := len(r.audit()); n != 1 {
		t.Fatalf("audit has %d lines, want 1", n)
	}
}

// TestE2ETriggerBringsChildBack: a trigger to a crashed child waiting for
// its restart brings it back at once (fresh: no conversation id is known)
// and delivers once it is ready; with a conversation id the resume is tried
// and its failure reported as RESUME_FAILED.
func TestE2ETriggerBringsChildBack(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig+"crash: {transient_delay: 60s}\n")
	starts := filepath.Join(r.dir, "starts")
	pane := r.start("-ready", "-raw", "-ack", "-starts", starts)
	killChild(t, r.waitStarts(starts, 1)[0])
	r.tm.WaitFor(t, pane, "restarting in", 5*time.Second)
	res := r.trigger(ipc.TriggerParams{TriggerID: "b-1", Prompt: "wake up", Wait: true})
	if res.Result != ipc.OutcomeDelivered || res.Fallback != "fresh" {
		t.Fatalf("to a crashed child: %+v, want delivered via fresh", res)
	}
	if n := len(r.starts(starts)); n != 2 {
		t.Fatalf("starts %d, want 2", n)
	}
	// A known conversation: the restart resumes it. fakeagent refuses the
	// resume flag and exits, so the resume fails.
	r.hook(`{"session_id":"3c9f5e2a-1b4d-4e6f-8a7b-9c0d1e2f3a4b","hook_event_name":"SessionStart","source":"startup"}`)
	killChild(t, r.waitStarts(starts, 2)[1])
	testutil.WaitUntil(t, 20*time.Second, "restarting", func() bool { return r.state("doc").Lifecycle == "restarting" })
	res = r.trigger(ipc.TriggerParams{TriggerID: "b-2", Prompt: "wake up again", Wait: true})
	if res.Result != ipc.OutcomeFailed || res.ErrorCode != ipc.CodeResumeFailed || res.Fallback != "resume" {
		t.Fatalf("resume of a conversation the agent refuses: %+v, want RESUME_FAILED", res)
	}
}

// TestE2ETriggerReadOnlyStateDir (fault): with the state dir read-only the
// audit line cannot be written; the trigger is still delivered, and the
// failure is reported in the result and the session log.
func TestE2ETriggerReadOnlyStateDir(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig)
	pane := r.start("-ready", "-raw", "-ack")
	dir := filepath.Join(r.env["XDG_STATE_HOME"], "sup")
	audit := filepath.Join(dir, "audit.jsonl")
	// A full disk: /dev/full takes the open and fails every write (ENOSPC).
	if err := os.Symlink("/dev/full", audit); err != nil {
		t.Fatal(err)
	}
	res := r.trigger(ipc.TriggerParams{TriggerID: "full-1", Prompt: "still goes", Wait: true})
	if res.Result != ipc.OutcomeDelivered || !strings.Contains(res.AuditError, "no space left") {
		t.Fatalf("disk full: %+v, want delivered with an audit_error saying so", res)
	}
	r.tm.WaitFor(t, pane, "ACK_TRIGGER:full-1", 5*time.Second)
	// A read-only state dir. chmod does not stop root, so the audit file
	// is also a directory, which nobody can open for writing.
	os.Remove(audit)
	if err := os.Mkdir(audit, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	res = r.trigger(ipc.TriggerParams{TriggerID: "ro-1", Prompt: "still goes", Wait: true})
	if res.Result != ipc.OutcomeDelivered || !strings.Contains(res.AuditError, "audit.jsonl") {
		t.Fatalf("read-only: %+v, want delivered with an audit_error naming the file", res)
	}
	r.tm.WaitFor(t, pane, "ACK_TRIGGER:ro-1", 5*time.Second)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v", logs)
	}
	data, _ := os.ReadFile(logs[0])
	if !strings.Contains(string(data), "audit_failed") {
		t.Fatalf("session log lacks audit_failed:\n%s", data)
	}
	if st := r.state("doc"); st.Lifecycle != "running" {
		t.Fatalf("lifecycle %s", st.Lifecycle)
	}
}

func killChild(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill child %d: %v", pid, err)
	}
}

// TestE2ETriggerCLI: sup trigger prints the outcome and says it in its
// exit status; sup unblock answers for a thread that was not blocked.
func TestE2ETriggerCLI(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig)
	r.start("-ready", "-raw", "-ack")
	out := r.mustSup("trigger", "--id", "cli-1", "--thread", "t", "--reason", "ci", "doc", "hello\nworld")
	if out != "delivered cli-1 to doc (attempt 1, acked by marker)\n" {
		t.Fatalf("sup trigger printed %q", out)
	}
	out = r.mustSup("trigger", "--id", "cli-1", "doc", "hello\nworld")
	if !strings.Contains(out, "[repeat: the first outcome of this id]") {
		t.Fatalf("repeat printed %q", out)
	}
	out, err := r.sup("trigger", "--no-envelope", "--ack-timeout", "200ms", "--json", "doc", "no marker for this")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("timeout: %v, want exit status 2", err)
	}
	var res ipc.TriggerResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.ErrorCode != ipc.CodeAckTimeout {
		t.Fatalf("--json printed %q (%v)", out, err)
	}
	if out := r.mustSup("unblock", "doc", "t"); out != "thread t of doc was not blocked\n" {
		t.Fatalf("sup unblock printed %q", out)
	}
}

// TestE2ETriggerDraftDefers: an unsent draft in the agent's input box makes
// the operator busy without any key; the trigger waits, types nothing, and
// fails with DEFER_TIMEOUT after max_defer.
func TestE2ETriggerDraftDefers(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig+"  max_defer: 1500ms\n")
	rec := filepath.Join(r.dir, "rec")
	r.start("-ready", "-raw", "-ack", "-record", rec, "-draft", "half a thought")
	testutil.WaitUntil(t, 20*time.Second, "the draft in state", func() bool { return r.state("doc").Draft == "half a thought" })
	res := r.trigger(ipc.TriggerParams{TriggerID: "dr-1", Prompt: "not now", Wait: true})
	if res.Result != ipc.OutcomeFailed || res.ErrorCode != ipc.CodeDeferTimeout {
		t.Fatalf("with a draft: %+v, want failed DEFER_TIMEOUT", res)
	}
	if got := r.recorded(rec); got != "" {
		t.Fatalf("the agent read %q while its input box held a draft", got)
	}
}

// TestE2ETriggerWithholdsEnterFromDialog: a dialog that opens between a
// trigger's paste and its Enter (Gemini CLI draws its prompt for a moment
// before its folder-trust dialog, whose default is "Trust folder") does
// not get the Enter: the trigger fails SUBMIT_WITHHELD, never retried, and
// the dialog stays open for the human.
func TestE2ETriggerWithholdsEnterFromDialog(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig)
	// The confirm profile with time for the dialog to be read before the
	// Enter would go.
	r.write("config/sup/profiles/slowconfirm.yaml", strings.Replace(testutil.ConfirmProfile, "submit_delay: 1ms", "submit_delay: 600ms", 1))
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "slowconfirm", filepath.Join(r.dir, "doc.md"), "--",
		"fakeagent", "-raw", "-confirm", "trust this folder", "-ask-on-input")
	r.tm.WaitFor(t, pane, "fakeagent ready", 10*time.Second)
	testutil.WaitUntil(t, 10*time.Second, "ready", func() bool { return r.state("doc").Activity == "ready" })
	// No y, n or digit in the text: fakeagent's question takes those.
	res := r.trigger(ipc.TriggerParams{TriggerID: "wh-1", Prompt: "check the tree", Wait: true})
	if res.Result != ipc.OutcomeFailed || res.ErrorCode != ipc.CodeSubmitWithheld || res.Attempts != 1 {
		t.Fatalf("a dialog opened under the paste: %+v, want failed SUBMIT_WITHHELD after 1 attempt", res)
	}
	if !strings.Contains(res.Message, "prompt is open") {
		t.Fatalf("message %q does not say why", res.Message)
	}
	time.Sleep(700 * time.Millisecond) // an Enter would have landed by now
	if screen := r.tm.Capture(pane); strings.Contains(screen, "enter reached the question") {
		t.Fatalf("the Enter reached the dialog:\n%s", screen)
	}
	if st := r.state("doc"); st.Activity != "needs_confirmation" {
		t.Fatalf("after the withheld Enter: %s, want the dialog still open", st.Activity)
	}
}
