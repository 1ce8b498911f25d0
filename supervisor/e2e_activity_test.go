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
