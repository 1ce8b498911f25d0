//go:build linux

package agenttest

import (
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestClaudeScreenOnlyDetection: without hooks, the screen alone takes
// real Claude Code to needs_confirmation at its permission prompt and to
// ready after the turn. Logs the delay from the screen showing it to the
// supervisor publishing it (goals: ≤ 500 ms and ≤ 2 s; ready waits out the
// 1 s quiet debounce by design).
func TestClaudeScreenOnlyDetection(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t)
	next := a.WatchActivity()
	a.Type("RUN: touch screen-only.txt")
	shown := a.WaitScreenAt(ClaudePermission)
	ev := next("needs_confirmation")
	if rule, _ := ev.Data["rule"].(string); !strings.HasPrefix(rule, "screen:") {
		t.Fatalf("needs_confirmation came from %q, want a screen rule (no hooks installed)", rule)
	}
	t.Logf("permission prompt on screen → needs_confirmation published: %v", time.UnixMilli(ev.At).Sub(shown).Round(time.Millisecond))
	a.PressUntilGone(ClaudePermission, "Enter")
	done := a.WaitScreenAt(ClaudeAnswerMark + "done: ")
	ev = next("ready")
	t.Logf("answer on screen → ready published: %v", time.UnixMilli(ev.At).Sub(done).Round(time.Millisecond))
	if st := a.State(); st.Activity != "ready" || st.WaitingSince == 0 {
		t.Fatalf("after the turn: %+v", st)
	}
}

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
