//go:build linux

package agenttest

import (
	"slices"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestCodexHooksReviewAnswered: Codex's review of new hooks (its start
// after `sup hooks install codex`) is in the queue with a summary and
// answer keys, and `sup answer NAME yes` trusts them ("Trust all and
// continue") without a key in the pane.
func TestCodexHooksReviewAnswered(t *testing.T) {
	t.Parallel()
	a := StartCodex(t, testutil.NewTmux(t), WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "codex", "--user") }))
	a.WaitScreen("Hooks need review")
	var st ipc.State
	testutil.WaitUntil(t, ScreenTimeout, "the hooks review in state", func() bool {
		st = a.State()
		return st.PromptID != "" && st.Reason == "hooks_review"
	})
	t.Logf("codex %s hooks review: summary %q choices %v options %v", AgentVersion(t, "codex"), st.Summary, st.PromptChoices, st.PromptOptions)
	if st.Summary == "" || !slices.Contains(st.PromptChoices, "yes") {
		t.Fatalf("hooks review: summary %q, choices %v: want a summary and yes\n%s", st.Summary, st.PromptChoices, a.Screen())
	}
	out, err := a.SupCmd("answer", "--expect", st.PromptID, a.Doc, "yes")
	if err != nil {
		t.Fatalf("sup answer yes: %v\n%s", err, a.Screen())
	}
	t.Logf("sup answer yes: %s", strings.TrimSpace(out))
	a.WaitCodexReady()
}
