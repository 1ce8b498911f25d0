//go:build linux

package agenttest

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// claudeHeld is a Claude Code with sup's hooks and a hook hold far longer
// than the tests: only a key the human pressed can let the screen's word
// through before it (issue #13, item 4).
func claudeHeld(t *testing.T) *Agent {
	t.Helper()
	return startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }),
		WithSupConfig("activity: {hook_hold: 60s}\n"))
}

// TestClaudeEscEndsTurnWithoutHook: Esc during a turn interrupts it and
// Claude Code fires no Stop hook; the key makes sup read the screen again
// and take its ready over the UserPromptSubmit hook's busy at once.
func TestClaudeEscEndsTurnWithoutHook(t *testing.T) {
	t.Parallel()
	a := claudeHeld(t)
	a.Type("SLOW 20")
	a.WaitScreen(ClaudeBusy)
	testutil.WaitUntil(t, ScreenTimeout, "busy from the UserPromptSubmit hook", func() bool { return a.State().Activity == "busy" })
	a.EscapeUntilGone(ClaudeBusy)
	pressed := time.Now()
	testutil.WaitUntil(t, ScreenTimeout, "ready after the interrupt", func() bool { return a.State().Activity == "ready" })
	if d := time.Since(pressed); d > 20*time.Second { // the hold here is 60 s
		t.Fatalf("ready %s after Esc: the hook's busy held", d.Round(time.Millisecond))
	}
}

// TestClaudeDenyInPaneLeavesPrompt: a permission prompt denied in the pane
// (Esc) fires no hook; the key lets the screen take the session out of
// needs_confirmation at once, instead of after the hook's hold.
func TestClaudeDenyInPaneLeavesPrompt(t *testing.T) {
	t.Parallel()
	a := claudeHeld(t)
	a.Type("RUN: touch denied.txt")
	a.WaitScreen(ClaudePermission)
	testutil.WaitUntil(t, ScreenTimeout, "needs_confirmation from the PermissionRequest hook", func() bool {
		return a.State().Activity == "needs_confirmation"
	})
	a.EscapeUntilGone(ClaudePermission)
	pressed := time.Now()
	testutil.WaitUntil(t, ScreenTimeout, "out of needs_confirmation after the denial", func() bool {
		return a.State().Activity != "needs_confirmation"
	})
	if d := time.Since(pressed); d > 20*time.Second { // the hold here is 60 s
		t.Fatalf("left needs_confirmation %s after Esc: the hook's prompt held", d.Round(time.Millisecond))
	}
}
