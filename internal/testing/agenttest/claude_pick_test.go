//go:build linux

package agenttest

import (
	"os"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestClaudePickAnswersRightAway (issue 22): the human types a request in
// real Claude Code's pane and, with `sup pick` open in another pane, presses
// y as soon as the picker shows the permission prompt (well within 5 s of
// it): the picker's answer is not refused for the request's keys, and the
// command runs.
func TestClaudePickAnswersRightAway(t *testing.T) {
	t.Parallel()
	a, next := startAnswerNowClaude(t)
	pickAnswersRightAway(t, a, next, ClaudeReady)
}

// TestCodexPickAnswersRightAway (issue 22): the same for real Codex's
// approval, which sup reads from the screen alone.
func TestCodexPickAnswersRightAway(t *testing.T) {
	t.Parallel()
	a := startReadyCodex(t, WithSupConfig(answerNowConfig))
	pickAnswersRightAway(t, a, a.WatchActivity(), CodexPrompt)
}

// pickAnswersRightAway opens `sup pick` in a pane of the agent's tmux
// server, types a request that asks permission in the agent's pane, and
// presses y in the picker the moment it shows the prompt: within 5 s of
// the first needs_confirmation event, the command runs.
func pickAnswersRightAway(t *testing.T, a *Agent, next func(string) ipc.Event, ready string) {
	p := a.Tmux.NewWindowDir(a.Dir, a.Env, a.Sup, "pick")
	t.Cleanup(func() {
		if t.Failed() {
			dumpSupLog(t, a)
		}
	})
	// A ready session waits on the human too: the picker lists it.
	name := a.State().Name
	a.Tmux.WaitForScreen(t, p, "> "+name, 15*time.Second)

	_, at, file := askPermission(t, a, next, "pick-yes.txt")
	// The prompt block under the preview names the keys it takes (a
	// summary only the claude pack reads from the screen).
	a.Tmux.WaitForScreen(t, p, "answer: y yes", 10*time.Second)
	a.Tmux.SendKeys(p, "y")
	pressed := time.Since(at)
	t.Logf("y pressed in sup pick %s after the first needs_confirmation event", pressed)
	if pressed > 10*time.Second { // "at once" on a loaded machine, with tmux captures between
		t.Fatalf("the picker showed the prompt only %s after it appeared, want y pressed within 10 s", pressed)
	}
	a.Tmux.WaitForScreen(t, p, "answered "+name+": yes", 10*time.Second)
	testutil.WaitUntil(t, 30*time.Second, "the approved command's file", func() bool { _, err := os.Stat(file); return err == nil })
	waitReady(t, a, ready)
	a.Tmux.SendKeys(p, "q")
	testutil.WaitUntil(t, ScreenTimeout, "pick to quit on q", func() bool { return a.Tmux.PaneDead(p) })
}
