//go:build linux

package agenttest

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestClaudeAnswerFigures measures issue 22's figures against real Claude
// Code (run with SUP_BENCH=1; the command is in specs/performance.md):
// the first needs_confirmation event → a successful `sup answer --expect
// <its id> yes` returning (median and p95 over 20 prompts; goal: the first
// try succeeds), and `no` typed 1 s after the event → the session no
// longer needs_confirmation (median over 10; goal ≤ 1 s).
func TestClaudeAnswerFigures(t *testing.T) {
	if os.Getenv("SUP_BENCH") == "" {
		t.Skip("a measurement: set SUP_BENCH=1")
	}
	a, next := startAnswerNowClaude(t)
	var yes, no []time.Duration
	for i := range 20 {
		id, at, file := askPermission(t, a, next, fmt.Sprintf("fig-yes-%d.txt", i))
		if _, code, err := answer(a, "--expect", id, a.Doc, "yes"); err != nil {
			t.Fatalf("prompt %d: the first try failed: exit %d %v", i, code, err)
		}
		yes = append(yes, time.Since(at))
		testutil.WaitUntil(t, 30*time.Second, "the approved command's file", func() bool { _, err := os.Stat(file); return err == nil })
		a.WaitScreen(ClaudeReady)
	}
	slices.Sort(yes)
	t.Logf("first needs_confirmation → sup answer --expect yes succeeded: median %s p95 %s (n=%d, every first try succeeded)",
		yes[len(yes)/2], yes[len(yes)*95/100], len(yes))
	for i := range 10 {
		id, at, _ := askPermission(t, a, next, fmt.Sprintf("fig-no-%d.txt", i))
		time.Sleep(time.Until(at.Add(time.Second)))
		start := time.Now()
		if _, code, err := answer(a, "--expect", id, a.Doc, "no"); err != nil {
			t.Fatalf("no %d: exit %d %v", i, code, err)
		}
		testutil.WaitUntil(t, 30*time.Second, "needs_confirmation to end", func() bool { return a.State().Activity != "needs_confirmation" })
		no = append(no, time.Since(start))
		a.WaitScreen(ClaudeReady)
		// Claude Code sends the rejection with the next message, which
		// the stand-in answers without a tool: spend it on a filler
		// trigger (delivered: sup let it through after the no).
		if out, err := a.SupCmd("trigger", "--id", fmt.Sprintf("filler-%d", i), a.Doc, "filler"); err != nil {
			t.Fatalf("the filler trigger: %s %v", out, err)
		}
		testutil.WaitUntil(t, 30*time.Second, "the filler turn to end", func() bool { return a.State().Activity == "ready" })
		a.WaitScreen(ClaudeReady)
	}
	slices.Sort(no)
	t.Logf("no at 1 s → not needs_confirmation: median %s max %s (n=%d)", no[len(no)/2], no[len(no)-1], len(no))
}
