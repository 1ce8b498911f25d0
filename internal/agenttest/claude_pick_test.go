//go:build linux

package agenttest

import (
	"os"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testutil"
)

// TestClaudePickAnswersRightAway (issue 22): the human types a request in
// real Claude Code's pane and, with `sup pick` open in another pane, presses
// y as soon as the picker shows the permission prompt (well within 5 s of
// it): the picker's answer is not refused for the request's keys, and the
// command runs.
func TestClaudePickAnswersRightAway(t *testing.T) {
	t.Parallel()
	a, next := startAnswerNowClaude(t)
	p := a.Tmux.NewWindowDir(a.Dir, a.Env, a.Sup, "pick")
	// A ready session waits on the human too: the picker lists it.
	a.Tmux.WaitForScreen(t, p, "> "+a.State().Name, 15*time.Second)

	_, at, file := askPermission(t, a, next, "pick-yes.txt")
	a.Tmux.WaitForScreen(t, p, "prompt: Bash: touch pick-yes.txt", 10*time.Second)
	a.Tmux.SendKeys(p, "y")
	pressed := time.Since(at)
	t.Logf("y pressed in sup pick %s after the first needs_confirmation event", pressed)
	if pressed > 5*time.Second {
		t.Fatalf("the picker showed the prompt only %s after it appeared, want y pressed within 5 s", pressed)
	}
	a.Tmux.WaitForScreen(t, p, "answered "+a.State().Name+": yes", 10*time.Second)
	testutil.WaitUntil(t, 30*time.Second, "the approved command's file", func() bool { _, err := os.Stat(file); return err == nil })
	waitReady(t, a, ClaudeReady)
	a.Tmux.SendKeys(p, "q")
	testutil.WaitUntil(t, 10*time.Second, "pick to quit on q", func() bool { return a.Tmux.PaneDead(p) })
}
