//go:build linux

package agenttest

import (
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestClaudeErrorIsStuck (issue 22): a turn that the model ends with a
// 400 waits on the human: real Claude Code's session reads error, with its
// reason and message, and enters the stuck queue (waiting_since set).
func TestClaudeErrorIsStuck(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }))
	a.Type("FAIL 400")
	var st ipc.State
	testutil.WaitUntil(t, 60*time.Second, "error with waiting_since", func() bool {
		st = a.State()
		return st.Activity == "error" && st.WaitingSince != 0
	})
	if st.Reason != "api_error" || st.Summary == "" {
		dumpSupLog(t, a)
		t.Fatalf("after a 400: reason %q summary %q, want api_error and the error's message", st.Reason, st.Summary)
	}
	t.Logf("error: %s %q", st.Reason, st.Summary)
	if out, err := a.SupCmd("queue"); err != nil || !strings.Contains(out, st.Name) {
		t.Fatalf("sup queue does not list the failed session: %s %v", out, err)
	}
}
