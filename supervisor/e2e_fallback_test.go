//go:build linux

package supervisor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EFallbackUnrecognized: under a profile with a classifier pack, a
// program whose screen no rule reads and that waits quietly becomes
// needs_confirmation (reason unrecognized, rule fallback:unrecognized, its
// question as summary) after unknown_after; a key undoes it and output
// that keeps flowing keeps it off (specs/detection.md, "Fallback").
func TestE2EFallbackUnrecognized(t *testing.T) {
	t.Parallel()
	r := newRig(t, "stop_grace: 300ms\n")
	r.write("config/sup/profiles/claude.yaml", "unknown_after: 3s\n") // the default, over the rig's 1m
	script := `printf "Setting up\nPick a colour [r/g/b]: "; read c; while :; do echo "working $c"; sleep 0.2; done`
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "claude", filepath.Join(r.dir, "doc.md"), "--", "sh", "-c", script)
	state := func() ipc.State {
		st, _ := r.tryState("doc") // a zero state fails the callers' checks
		return st
	}
	var st ipc.State
	testutil.WaitUntil(t, 15*time.Second, "the fallback", func() bool {
		st = state()
		return st.Activity == "needs_confirmation"
	})
	if st.Reason != "unrecognized" || st.Summary != "Pick a colour [r/g/b]:" || st.WaitingSince == 0 {
		t.Fatalf("the fallback's state: %+v", st)
	}
	// The activity event names the rule, for a pack author.
	logText, err := os.ReadFile(filepath.Join(r.dir, "state", "sup", st.SessionID+".log"))
	if err != nil || !strings.Contains(string(logText), "rule=fallback:unrecognized") {
		t.Fatalf("the session log does not name the fallback's rule (%v):\n%s", err, logText)
	}
	// It waited out the quiet window (3s) from the last output.
	if waited := time.UnixMilli(st.WaitingSince).Sub(time.UnixMilli(st.LastOutputAt)); waited < 3*time.Second {
		t.Fatalf("fired %v after the last output, before unknown_after (3s)", waited)
	}
	r.tm.SendKeys(pane, "r", "Enter")
	testutil.WaitUntil(t, 20*time.Second, "the key undoing the fallback", func() bool {
		return state().Activity != "needs_confirmation"
	})
	for end := time.Now().Add(4 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if st := state(); st.Activity == "needs_confirmation" {
			t.Fatalf("the fallback fired while output flows: %+v", st)
		}
	}
}
