//go:build linux

package agenttest

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestCodexApprovalFromScreen: Codex's approval prompt is needs_confirmation
// without hooks, and the finished turn is ready.
func TestCodexApprovalFromScreen(t *testing.T) {
	t.Parallel()
	a := StartCodex(t, testutil.NewTmux(t))
	a.WaitCodexReady()
	next := a.WatchActivity()
	a.Type("RUN: touch codex-screen.txt")
	shown := a.WaitScreenAt(CodexApproval)
	ev := next("needs_confirmation")
	t.Logf("approval prompt on screen → needs_confirmation published by %v: %v", ev.Data["rule"], time.UnixMilli(ev.At).Sub(shown).Round(time.Millisecond))
	if st := a.State(); st.Reason != "permission" {
		t.Fatalf("at the approval prompt: reason %q", st.Reason)
	}
	a.PressUntilGone(CodexApproval, "y")
	next("ready")
}
