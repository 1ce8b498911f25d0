//go:build linux

package agenttest

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestClaudeStalled (issue 24): real Claude Code waits for a model that
// never answers (the stand-in's HANG): its spinner turns, its verb and
// elapsed time change, and nothing else does. After stall_after (4s here)
// the session is busy, reason stalled, in the queue with the spinner line
// as summary; the human's Esc ends the turn and the stall with it.
func TestClaudeStalled(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) {
		a.InstallHooks(a.Sup, "claude", "--user")
		stallAfterShort(t, a, "claude")
	}), WithSupConfig("activity: {quiet_window: 1s}\n"))
	checkStalled(t, a, "UserPromptSubmit", nil)
}

// TestCodexStalled is TestClaudeStalled with real Codex (no hooks: its
// screen and OSC 7501 say busy): `• Working (Ns • esc to interrupt)` is
// its status line.
func TestCodexStalled(t *testing.T) {
	t.Parallel()
	a := startReadyCodex(t, WithBeforeStart(func(a *Agent) { stallAfterShort(t, a, "codex") }), WithSupConfig("activity: {quiet_window: 1s}\n"))
	checkStalled(t, a, "", []string{CodexBusy, CodexLoaded})
}

// stallAfterShort overlays the agent's profile with a short stall_after:
// 4 s, a margin for CI load, where Claude Code can take seconds to draw a
// turn's first frame (real progress, which lifts a stall).
func stallAfterShort(t *testing.T, a *Agent, profile string) {
	writeSandboxFile(t, filepath.Join(a.Env["XDG_CONFIG_HOME"], "sup", "profiles", profile+".yaml"), "stall_after: 4s\n")
}

// checkStalled sends the stand-in's HANG to a ready agent and follows the
// stall: in, kept while only the spinner moves, out on the human's Esc.
// submitHook, when not "", is the hook the submit fires: every hook is
// progress, and under load it can come after stall_after (4s here), so
// the stall is awaited only once it was read. frame is what the turn's
// first whole frame shows, awaited likewise: it is progress too, and
// under load Codex drew its status line 5 s after the submit, which
// lifted a stall read before it (a whole run, 2026-11-29).
func checkStalled(t *testing.T, a *Agent, submitHook string, frame []string) {
	t.Helper()
	a.Type("HANG")
	testutil.WaitUntil(t, 30*time.Second, "busy", func() bool { return a.State().Activity == "busy" })
	if submitHook != "" {
		a.waitSignal("hook:" + submitHook)
	}
	for _, s := range frame {
		a.WaitScreen(s)
	}
	testutil.WaitUntil(t, 30*time.Second, "stalled", func() bool { return a.State().Reason == "stalled" })
	st := a.State()
	t.Logf("stalled: summary %q", st.Summary)
	if st.Activity != "busy" || st.WaitingSince == 0 || st.Summary == "" {
		dumpSupLog(t, a)
		t.Fatalf("stalled: %+v\n%s", st, a.Screen())
	}
	// The queue reads the supervisor's published queue facts, written a
	// moment after the state changed (seconds on a loaded machine: CI).
	var out string
	var err error
	testutil.WaitUntil(t, ScreenTimeout, "the stalled session in sup queue", func() bool {
		out, err = a.SupCmd("queue")
		return err == nil && strings.Contains(out, "stalled")
	})
	// Stays stalled while only the spinner moves.
	time.Sleep(3 * time.Second)
	if st := a.State(); st.Reason != "stalled" {
		dumpSupLog(t, a)
		t.Fatalf("the spinner alone lifted the stall: %+v\n%s", st, a.Screen())
	}
	a.Keys("Escape")
	testutil.WaitUntil(t, 30*time.Second, "the interrupt ends the stall", func() bool {
		st := a.State()
		return st.Reason != "stalled" && st.Activity == "ready"
	})
}
