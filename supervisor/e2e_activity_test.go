//go:build linux

package supervisor_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EShellForeground: the shell profile is ready while the shell waits
// at its prompt and busy while a command runs, from the pty's foreground
// process group.
func TestE2EShellForeground(t *testing.T) {
	t.Parallel()
	// An interactive shell ignores SIGTERM: a short grace keeps cleanup quick.
	r := newRig(t, "activity: {ready_debounce: 200ms}\nstop_grace: 300ms\n")
	r.env["SHELL"] = "/bin/sh"
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "shell", filepath.Join(r.dir, "doc.md"))
	waitActivity := func(want, reason string) ipc.State {
		t.Helper()
		var st ipc.State
		testutil.WaitUntil(t, 10*time.Second, "activity "+want, func() bool {
			var ok bool
			st, ok = r.tryState("doc")
			return ok && st.Activity == want && st.Reason == reason
		})
		return st
	}
	if st := waitActivity("ready", "idle"); st.WaitingSince == 0 {
		t.Fatalf("a shell at its prompt waits on the human: %+v", st)
	}
	r.mustSup("inject", "doc", "sleep 3; echo slept")
	if st := waitActivity("busy", "working"); st.WaitingSince != 0 {
		t.Fatalf("busy yet waiting since %d", st.WaitingSince)
	}
	r.tm.WaitFor(t, pane, "slept", 10*time.Second)
	waitActivity("ready", "idle")
}

// TestE2EStopInteractiveBash: `sup stop` of an interactive bash ends it
// at once, not after the 10 s stop_grace: the SIGHUP goes first (bash
// ignores SIGTERM but not the hangup a closing terminal sends), and sup
// stop says which signal did it. (Within 1 s on an idle machine; the bound
// is half the grace, since the sup process itself takes a second or two to
// start and exit on a loaded one.)
func TestE2EStopInteractiveBash(t *testing.T) {
	t.Parallel()
	bash := testutil.Program(t, "bash", "apt-get install bash")
	r := newRig(t, "stop_grace: 10s\n")
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "shell", filepath.Join(r.dir, "doc.md"),
		"--", bash, "--norc", "-i")
	testutil.WaitUntil(t, 10*time.Second, "the session running", func() bool {
		st, ok := r.tryState("doc")
		return ok && st.Lifecycle == "running"
	})
	r.mustSup("inject", "doc", "echo bash-is-up")
	r.tm.WaitFor(t, pane, "bash-is-up", 10*time.Second)
	start := time.Now()
	out := r.mustSup("stop", "doc")
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("sup stop of an interactive bash took %v, want within the 10s stop_grace", d)
	}
	if out != "stopped doc (SIGHUP ended the agent)\n" {
		t.Fatalf("sup stop printed %q", out)
	}
}

// TestE2EShellLoopGuardProgress: a shell has no summaries, so the loop
// guard's progress there is the output a line-mode trigger produced:
// commands that print keep the thread going past loop_no_progress;
// commands that print nothing (only their echo and a new prompt) trip it.
func TestE2EShellLoopGuardProgress(t *testing.T) {
	t.Parallel()
	r := newRig(t, "activity: {ready_debounce: 100ms}\nstop_grace: 300ms\ntrigger: {loop_no_progress: 3, rate_limit: 1000, recheck: 50ms}\n")
	r.env["SHELL"] = "/bin/sh"
	r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "shell", filepath.Join(r.dir, "doc.md"))
	testutil.WaitUntil(t, 10*time.Second, "the shell to be ready", func() bool {
		st, ok := r.tryState("doc")
		return ok && st.Activity == "ready"
	})
	send := func(i int, cmd string) ipc.TriggerResult {
		t.Helper()
		var res ipc.TriggerResult
		if err := r.call(ipc.MethodTrigger, ipc.TriggerParams{TriggerID: fmt.Sprintf("sh-%d", i), Prompt: cmd, Wait: true}, &res); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // its output arrives; the next trigger judges it
		return res
	}
	for i := range 8 {
		if res := send(i, fmt.Sprintf("echo the output of command number %d is here", i)); res.Result != ipc.OutcomeDelivered {
			t.Fatalf("trigger %d of commands that print: %+v, want delivered (their output is progress)", i, res)
		}
	}
	var last ipc.TriggerResult
	for i := 8; i < 14; i++ {
		if last = send(i, "true"); last.Result != ipc.OutcomeDelivered {
			break
		}
	}
	if last.ErrorCode != ipc.CodeThreadAutoBlocked {
		t.Fatalf("commands that print nothing: last %+v, want THREAD_AUTO_BLOCKED", last)
	}
}
