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

// TestClaudeHooksDriveState: with `sup hooks install claude`, a real
// permission prompt makes state needs_confirmation with the command in the
// summary; approving it goes busy then ready; agent_session_id is the id
// Claude's hooks carry. Then (issue 22) a turn that the model ends with a
// 400 waits on the human: the session reads error, with its reason and
// message, and enters the stuck queue (waiting_since set). One agent for
// what were two tests (issue 29).
func TestClaudeHooksDriveState(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }))
	next := a.WatchActivity()
	a.Type("RUN: touch hooked.txt")
	next("busy")
	ev := next("needs_confirmation")
	// The screen may see the prompt first; the hook then adds the command.
	var st ipc.State
	testutil.WaitUntil(t, ScreenTimeout, "the PermissionRequest hook's summary", func() bool {
		st = a.State()
		return strings.Contains(st.Summary, "touch hooked.txt")
	})
	if st.Activity != "needs_confirmation" || st.Reason != "permission" {
		t.Fatalf("at the permission prompt: activity %q reason %q summary %q", st.Activity, st.Reason, st.Summary)
	}
	if st.AgentSessionID == "" || st.WaitingSince == 0 {
		t.Fatalf("agent_session_id %q, waiting_since %d", st.AgentSessionID, st.WaitingSince)
	}
	t.Logf("needs_confirmation published by %v", ev.Data["rule"])
	a.WaitScreen(ClaudePermission)
	a.PressUntilGone(ClaudePermission, "Enter")
	next("busy")
	next("ready")
	if _, err := os.Stat(filepath.Join(a.Dir, "hooked.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	end := a.State()
	if end.Reason != "stopped" || !strings.HasPrefix(end.Summary, "done: ") || end.AgentSessionID != st.AgentSessionID {
		t.Fatalf("after the turn: reason %q summary %q agent session %q (was %q)", end.Reason, end.Summary, end.AgentSessionID, st.AgentSessionID)
	}
	// The transcript Claude named in SessionStart carries the same id.
	if !transcriptHas(a.Home, st.AgentSessionID) {
		t.Fatalf("no transcript of session %s under %s", st.AgentSessionID, a.Home)
	}

	a.Type("FAIL 400")
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

func transcriptHas(home, id string) bool {
	found := false
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, id+".jsonl") {
			found = true
		}
		return nil
	})
	return found
}
