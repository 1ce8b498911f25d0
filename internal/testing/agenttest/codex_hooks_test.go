//go:build linux

package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestCodexNotifyMakesReady: with `sup hooks install codex`, a finished
// Codex turn reaches sup through notify (and hooks.json) as ready.
func TestCodexNotifyMakesReady(t *testing.T) {
	t.Parallel()
	a := StartCodex(t, testutil.NewTmux(t), WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "codex", "--user") }))
	// A new hooks.json must be trusted once: "2. Trust all and continue".
	a.WaitScreen("Hooks need review")
	a.PressUntilGone("Hooks need review", "2", "Enter")
	a.WaitCodexReady()
	next := a.WatchActivity()
	a.Type("SAY all finished here")
	a.WaitScreen(CodexAnswerMark + "all finished here")
	next("ready")
	st := a.State()
	if st.Reason != "stopped" || st.Summary != "all finished here" || st.AgentSessionID == "" {
		t.Fatalf("after the turn: reason %q summary %q agent session %q", st.Reason, st.Summary, st.AgentSessionID)
	}
	logs, _ := filepath.Glob(filepath.Join(a.Env["XDG_STATE_HOME"], "sup", "*.log"))
	if len(logs) != 1 {
		t.Fatalf("session logs: %v", logs)
	}
	// The screen (OSC 7501 done) may say ready first; notify follows.
	testutil.WaitUntil(t, ScreenTimeout, "Codex notify to reach sup", func() bool {
		data, _ := os.ReadFile(logs[0])
		return strings.Contains(string(data), "event=agent-turn-complete")
	})
}
