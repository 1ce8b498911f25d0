//go:build linux

package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestGeminiHooksDriveState: with `sup hooks install gemini`, SessionStart
// gives agent_session_id, BeforeAgent/BeforeTool make the session busy, the
// ToolPermission notification needs_confirmation with the command in the
// summary, approving busy then ready (AfterAgent) with the last answer;
// `sup restart` resumes the same Gemini session by its id.
func TestGeminiHooksDriveState(t *testing.T) {
	t.Parallel()
	a := startReadyGemini(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "gemini", "--project", a.Dir) }))
	// SessionStart fires at startup, before any prompt.
	var first ipc.State
	testutil.WaitUntil(t, ScreenTimeout, "SessionStart to set agent_session_id", func() bool {
		first = a.State()
		return first.AgentSessionID != ""
	})
	next := a.WatchActivity()
	submitGemini(t, a, "RUN: touch hooked.txt")
	next("busy")
	next("needs_confirmation")
	var st ipc.State
	testutil.WaitUntil(t, ScreenTimeout, "the ToolPermission hook's summary", func() bool {
		st = a.State()
		return st.Summary == "Shell: touch hooked.txt"
	})
	if st.Activity != "needs_confirmation" || st.Reason != "permission" || st.WaitingSince == 0 {
		t.Fatalf("at the confirmation: activity %q reason %q waiting_since %d", st.Activity, st.Reason, st.WaitingSince)
	}
	a.WaitScreen(GeminiConfirm)
	a.PressUntilGone(GeminiConfirm, "Enter")
	next("busy")
	next("ready")
	if _, err := os.Stat(filepath.Join(a.Dir, "hooked.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	testutil.WaitUntil(t, ScreenTimeout, "AfterAgent's summary", func() bool {
		st = a.State()
		return st.Reason == "stopped" && st.Summary == "done: Output: (empty)"
	})
	if st.AgentSessionID != first.AgentSessionID {
		t.Fatalf("agent session %q, was %q at start", st.AgentSessionID, first.AgentSessionID)
	}
	logs, _ := filepath.Glob(filepath.Join(a.Env["XDG_STATE_HOME"], "sup", "*.log"))
	if len(logs) != 1 {
		t.Fatalf("session logs: %v", logs)
	}
	data, _ := os.ReadFile(logs[0])
	for _, ev := range []string{"event=SessionStart", "event=BeforeAgent", "event=BeforeTool", "event=Notification", "event=AfterTool", "event=AfterAgent"} {
		if !strings.Contains(string(data), ev) {
			t.Errorf("the session log lacks %s", ev)
		}
	}

	// Resume by the exact id: the new Gemini CLI loads the conversation
	// and sends it with the next prompt.
	// Blank the pane (tmux's own copy of the screen, not the agent) so the
	// first run's last frame, which already shows the banner and the
	// prompt, cannot pass for the resumed CLI: on a loaded machine it
	// draws seconds after its SessionStart hook.
	if _, err := a.Tmux.Run("send-keys", "-R", "-t", a.Pane); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SupCmd("restart", a.Doc); err != nil {
		t.Fatal(err)
	}
	testutil.WaitUntil(t, ScreenTimeout, "sup to restart gemini", func() bool { return a.State().RestartCount == 1 })
	// The pane still shows the first run's banner and prompt until the new
	// CLI repaints (seconds on a loaded machine): wait for the resumed
	// run's own SessionStart hook before looking at the screen.
	testutil.WaitUntil(t, GeminiStartTimeout, "the resumed gemini's SessionStart hook", func() bool {
		data, _ := os.ReadFile(logs[0])
		return strings.Count(string(data), "event=SessionStart") >= 2
	})
	a.WaitGeminiReady()
	// And until it has finished drawing the conversation it resumed: keys
	// typed while it still loads can be lost.
	waitPaneQuiet(t, a, 2*time.Second)
	r := submitGemini(t, a, "SAY back again")
	a.WaitScreen(GeminiAnswerMark + "back again")
	if !strings.Contains(string(r.Body), "touch hooked.txt") {
		t.Fatalf("the resumed session's request lacks the earlier turns")
	}
	testutil.WaitUntil(t, ScreenTimeout, "the resumed session's hooks", func() bool {
		st = a.State()
		return st.Summary == "back again"
	})
	if st.AgentSessionID != first.AgentSessionID {
		t.Fatalf("after resume: agent session %q, want %q", st.AgentSessionID, first.AgentSessionID)
	}
}

// submitGemini types text and submits it, pressing Enter again while the
// model has not got it: a Gemini CLI that has just started (resumed or
// not, several at once on a loaded machine) can drop the first Enter,
// leaving the text in the box. An Enter on an empty box does nothing.
func submitGemini(t *testing.T, a *Agent, text string) fakemodel.Request {
	t.Helper()
	a.Type(text)
	for i := range 5 {
		if r, ok := a.Model.WaitFor(5*time.Second, func(r fakemodel.Request) bool { return r.UserText == text }); ok {
			return r
		}
		t.Logf("%q not submitted after %d Enter(s): pressing Enter again", text, i+1)
		a.Keys("Enter")
	}
	t.Fatalf("the model never got %q:\n%s", text, a.Screen())
	return fakemodel.Request{}
}

// waitPaneQuiet waits (up to ScreenTimeout) until the pane's screen has not
// changed for quiet.
func waitPaneQuiet(t *testing.T, a *Agent, quiet time.Duration) {
	t.Helper()
	last, since := a.Screen(), time.Now()
	testutil.WaitUntil(t, ScreenTimeout, "the pane to stop changing", func() bool {
		if now := a.Screen(); now != last {
			last, since = now, time.Now()
		}
		return time.Since(since) >= quiet
	})
}
