//go:build linux

package supervisor_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// startTrigger runs `sup trigger ARGS...` in the background and returns
// it with its stderr, killed at the end of the test whatever happened.
func (r *rig) startTrigger(args ...string) (*exec.Cmd, *testutil.Buffer, *bytes.Buffer) {
	r.t.Helper()
	return r.startVerb("trigger", args...)
}

// startVerb runs `sup VERB ARGS...` as startTrigger does.
func (r *rig) startVerb(verb string, args ...string) (*exec.Cmd, *testutil.Buffer, *bytes.Buffer) {
	r.t.Helper()
	// Race-built: a waiting trigger's client runs goroutines of its own
	// (its call, the progress events, the cancel on a signal).
	cmd := exec.Command(r.bins.Sup, append([]string{verb}, args...)...)
	cmd.Env, cmd.Dir = r.Environ(), r.dir
	var stdout bytes.Buffer
	stderr := &testutil.Buffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, stderr, &stdout
}

// TestE2ETriggerWaitSaysWhyAndCancels: a waiting `sup trigger` deferred
// behind the human's typing says so, with the reason, on stderr; SIGINT
// (Ctrl-C) takes it back: it is never typed, the command says so and
// exits 130, the audit records it cancelled, and pending_triggers is
// empty again.
func TestE2ETriggerWaitSaysWhyAndCancels(t *testing.T) {
	// Not parallel: it reads OperatorBusy, true only within the quiet window
	// after a key, by polling the state (a slow poll beside other tests
	// misses it).
	r := newRig(t, strings.Replace(triggerConfig, "quiet_window: 1s", "quiet_window: 3s", 1))
	rec := filepath.Join(r.dir, "rec")
	pane := r.start("-ready", "-raw", "-ack", "-record", rec)
	r.tm.SendLiteral(pane, "x")
	testutil.WaitUntil(t, 20*time.Second, "operator busy", func() bool { return r.state("doc").OperatorBusy })
	// Keep typing, so the quiet window never ends while the test looks.
	stopTyping := make(chan struct{})
	typing := make(chan struct{})
	go func() {
		defer close(typing)
		for {
			select {
			case <-stopTyping:
				return
			case <-time.After(time.Second):
				r.tm.SendLiteral(pane, "x")
			}
		}
	}()
	var once sync.Once
	stop := func() { once.Do(func() { close(stopTyping); <-typing }) }
	defer stop()

	cmd, stderr, _ := r.startTrigger("--id", "w-1", "doc", "please deploy")
	testutil.WaitUntil(t, 20*time.Second, "the deferral line", func() bool {
		return strings.Contains(stderr.String(), "deferred: the human is typing in the pane (OPERATOR_BUSY)")
	})
	if !strings.Contains(stderr.String(), "sup: trigger w-1 to doc deferred:") || !strings.Contains(stderr.String(), "Ctrl-C cancels it") {
		t.Fatalf("stderr %q", stderr.String())
	}
	// Another shell sees it pending and why.
	var pend ipc.PendingTriggers
	if err := r.call(ipc.MethodPendingTriggers, nil, &pend); err != nil {
		t.Fatal(err)
	}
	if len(pend.Triggers) != 1 || pend.Triggers[0].TriggerID != "w-1" || pend.Triggers[0].State != "deferred" ||
		pend.Triggers[0].ErrorCode != ipc.CodeOperatorBusy || pend.Triggers[0].PromptHead != "[BRIDGE_TRIGGER id=w-1 thread=default]" {
		t.Fatalf("pending_triggers %+v", pend)
	}
	if out := r.mustSup("pending", "doc"); !strings.Contains(out, "w-1") || !strings.Contains(out, "deferred") {
		t.Fatalf("sup pending printed %q", out)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("sup trigger after SIGINT: %v, want exit 130; stderr %q", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "cancelled trigger w-1 to doc: nothing was typed into the agent") {
		t.Fatalf("stderr after SIGINT %q", stderr.String())
	}
	recs := r.audit()
	if len(recs) == 0 {
		t.Fatal("no audit record")
	}
	a := recs[len(recs)-1]
	if a["trigger_id"] != "w-1" || a["result"] != "cancelled" || a["error_code"] != "TRIGGER_CANCELLED" ||
		!strings.Contains(a["message"].(string), "(interrupt)") {
		t.Fatalf("audit %v, want w-1 cancelled (TRIGGER_CANCELLED) by the interrupt", a)
	}
	if err := r.call(ipc.MethodPendingTriggers, nil, &pend); err != nil || len(pend.Triggers) != 0 {
		t.Fatalf("pending after the cancel: %+v %v", pend, err)
	}
	// The human stops typing: the quiet window passes, and still nothing
	// of the trigger reaches the agent.
	stop()
	time.Sleep(4 * time.Second)
	if got := r.recorded(rec); strings.Contains(got, "deploy") || strings.Contains(got, "BRIDGE") {
		t.Fatalf("the agent read %q after the cancel", got)
	}
}

// TestE2ETriggerCancelFromAnotherShell: `sup cancel TARGET ID` takes back
// a deferred trigger; the waiting caller gets its cancelled outcome;
// cancelling it again, or a delivered one, says why not.
func TestE2ETriggerCancelFromAnotherShell(t *testing.T) {
	t.Parallel()
	r := newRig(t, strings.Replace(triggerConfig, "quiet_window: 1s", "quiet_window: 30s", 1))
	rec := filepath.Join(r.dir, "rec")
	pane := r.start("-ready", "-raw", "-ack", "-record", rec)
	r.tm.SendLiteral(pane, "x")
	testutil.WaitUntil(t, 20*time.Second, "operator busy", func() bool { return r.state("doc").OperatorBusy })
	cmd, stderr, stdout := r.startTrigger("--id", "c-1", "doc", "later")
	testutil.WaitUntil(t, 20*time.Second, "the deferral line", func() bool { return strings.Contains(stderr.String(), "deferred") })
	if out := r.mustSup("cancel", "doc", "c-1"); out != "cancelled trigger c-1 of doc: nothing was typed\n" {
		t.Fatalf("sup cancel printed %q", out)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("the waiting sup trigger: %v, want exit 3 (not delivered: cancelled)", err)
	}
	if !strings.Contains(stdout.String(), "cancelled c-1 to doc (TRIGGER_CANCELLED: cancelled by cli:") {
		t.Fatalf("the waiting sup trigger printed %q", stdout.String())
	}
	_, err = r.sup("cancel", "doc", "c-1")
	if err == nil || !strings.Contains(err.Error(), "cancel: trigger c-1 of doc: it was already cancelled: cancelled by cli:") {
		t.Fatalf("second cancel: %v", err)
	}
	if st := r.state("doc"); st.Triggers["cancelled"] != 1 || st.Triggers["failed"] != 0 {
		t.Fatalf("state's trigger counts %v, want the cancel counted as cancelled, not failed", st.Triggers)
	}
	_, err = r.sup("cancel", "doc", "nope")
	if err == nil || !strings.Contains(err.Error(), `cancel: no pending trigger "nope" in doc (sup pending doc lists them)`) {
		t.Fatalf("unknown id: %v", err)
	}
	if got := r.recorded(rec); got != "x" {
		t.Fatalf("the agent read %q", got)
	}
}

// TestE2ERouteWaitSaysWhy: a route to a running session whose trigger is
// deferred behind the human's typing says so on stderr, as a waiting `sup
// trigger` does (a new user's route waited ten silent minutes), and the
// trigger goes out once the typing stops.
func TestE2ERouteWaitSaysWhy(t *testing.T) {
	t.Parallel()
	r := newRig(t, strings.Replace(triggerConfig, "quiet_window: 1s", "quiet_window: 3s", 1))
	pane := r.start("-ready", "-raw", "-ack")
	r.tm.SendLiteral(pane, "x")
	testutil.WaitUntil(t, 20*time.Second, "operator busy", func() bool { return r.state("doc").OperatorBusy })
	cmd, stderr, stdout := r.startVerb("route", "--name", "doc", "--id", "rw-1", "please deploy")
	testutil.WaitUntil(t, 10*time.Second, "the deferral line", func() bool {
		if !strings.Contains(stderr.String(), "sup: trigger rw-1 to doc deferred: the human is typing in the pane (OPERATOR_BUSY)") {
			r.tm.SendLiteral(pane, "x") // keep the operator busy until the line shows
			return false
		}
		return true
	})
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sup route: %v; stderr %q", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "routed to the running session doc") || !strings.Contains(stderr.String(), "goes out now") {
		t.Fatalf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
}
