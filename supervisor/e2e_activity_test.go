//go:build linux

package supervisor_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EShellForeground: the shell profile is ready while the shell waits
// at its prompt and busy while a command runs, from the pty's foreground
// process group.
func TestE2EShellForeground(t *testing.T) {
	// An interactive shell ignores SIGTERM: a short grace keeps cleanup quick.
	r := newRig(t, "activity: {ready_debounce: 200ms}\nstop_grace: 300ms\n")
	r.env["SHELL"] = "/bin/sh"
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "shell", filepath.Join(r.dir, "doc.md"))
	waitActivity := func(want, reason string) ipc.State {
		t.Helper()
		var st ipc.State
		testutil.WaitUntil(t, 10*time.Second, "activity "+want, func() bool {
			out, err := r.sup("state", "--json", "doc")
			return err == nil && json.Unmarshal([]byte(out), &st) == nil && st.Activity == want && st.Reason == reason
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
// within 1 s: the SIGHUP goes first (bash ignores SIGTERM but not the
// hangup a closing terminal sends), and sup stop says which signal did it.
func TestE2EStopInteractiveBash(t *testing.T) {
	bash := testutil.Program(t, "bash", "apt-get install bash")
	r := newRig(t, "stop_grace: 10s\n")
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "shell", filepath.Join(r.dir, "doc.md"),
		"--", bash, "--norc", "-i")
	testutil.WaitUntil(t, 10*time.Second, "the session", func() bool { _, err := r.sup("state", "doc"); return err == nil })
	r.mustSup("inject", "doc", "echo bash-is-up")
	r.tm.WaitFor(t, pane, "bash-is-up", 10*time.Second)
	start := time.Now()
	out := r.mustSup("stop", "doc")
	if d := time.Since(start); d > time.Second {
		t.Fatalf("sup stop of an interactive bash took %v, want within 1s", d)
	}
	if out != "stopped doc (SIGHUP ended the agent)\n" {
		t.Fatalf("sup stop printed %q", out)
	}
}
