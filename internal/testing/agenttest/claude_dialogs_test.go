//go:build linux

package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestClaudeFileAnswerSaysMode: Claude Code's file permission prompt read
// from the screen alone (no hooks) names the file in the queue, and
// `sup answer NAME always` — "Yes, and switch to accept edits … for this
// session" — says that the whole session changed mode, in its output and
// in the audit; both renderers.
func TestClaudeFileAnswerSaysMode(t *testing.T) {
	t.Parallel()
	for _, r := range claudeRenderers {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			a := StartClaude(t, testutil.NewTmux(t), r.opts...)
			a.WaitScreen(ClaudeReady)
			file := filepath.Join(a.Dir, "notes.txt")
			a.Type("WRITE: " + file + " hello")
			a.WaitScreen("Do you want to create notes.txt?")
			a.WaitOperatorIdle()
			var st ipc.State
			testutil.WaitUntil(t, ScreenTimeout, "the prompt in state", func() bool {
				st = a.State()
				return st.PromptID != "" && len(st.PromptOptions) > 1
			})
			if st.Summary != "Create file: notes.txt" {
				t.Fatalf("summary %q, want Create file: notes.txt", st.Summary)
			}
			out, err := a.SupCmd("answer", "--expect", st.PromptID, a.Doc, "always")
			if err != nil {
				t.Fatalf("sup answer always: %v", err)
			}
			t.Logf("sup answer always:\n%s", out)
			if !strings.Contains(out, "picked: Yes, and switch to accept edits") || !strings.Contains(out, "the whole session is now in accept edits mode") {
				t.Fatalf("sup answer always does not say the session changed mode:\n%s", out)
			}
			testutil.WaitUntil(t, 30*time.Second, "the file written", func() bool { _, err := os.Stat(file); return err == nil })
			audit, _ := os.ReadFile(filepath.Join(a.Env["XDG_STATE_HOME"], "sup", "audit.jsonl"))
			if !strings.Contains(string(audit), `"mode":"accept edits"`) {
				t.Fatalf("the audit lacks the mode change:\n%s", audit)
			}
		})
	}
}
