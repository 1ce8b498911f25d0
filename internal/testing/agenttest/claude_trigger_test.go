//go:build linux

package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestClaudeTrigger: a multi-line trigger reaches real Claude Code as ONE
// user message (the model stand-in sees one turn holding every line) and
// is acknowledged by the UserPromptSubmit hook or the busy it causes; a
// trigger sent while a permission prompt is open waits instead of
// answering it, and goes once the turn is over.
func TestClaudeTrigger(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }),
		WithSupConfig("activity: {quiet_window: 1s}\ntrigger: {recheck: 200ms, ack_timeout: 20s}\n"))

	res := triggerOneTurn(t, a, "real-1", ClaudeAnswerMark+"ok: ", ClaudeReady)
	if res.AckedBy != "hook" && res.AckedBy != "activity" {
		t.Fatalf("acked by %q, want the UserPromptSubmit hook or the busy it causes", res.AckedBy)
	}

	// A permission prompt is open: the trigger waits, the prompt stays.
	file := filepath.Join(a.Dir, "approved.txt")
	a.Type("RUN: touch approved.txt")
	a.WaitScreen(ClaudePermission)
	a.WaitOperatorIdle() // past the quiet window of the typed keys
	out, err := a.SupCmd("trigger", "--json", "--no-wait", "--id", "real-2", a.Doc, "after the prompt")
	if err != nil {
		t.Fatal(err)
	}
	res = ipc.TriggerResult{}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Result != ipc.OutcomeDeferred || res.ErrorCode != ipc.CodeAgentBusy {
		t.Fatalf("trigger at a permission prompt: %s (%v), want deferred AGENT_BUSY", out, err)
	}
	time.Sleep(time.Second)
	if !strings.Contains(a.Screen(), ClaudePermission) {
		t.Fatalf("the trigger answered the permission prompt:\n%s", a.Screen())
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the command ran before it was approved: %v", err)
	}
	a.PressUntilGone(ClaudePermission, "Enter")
	testutil.WaitUntil(t, 60*time.Second, "the deferred trigger's outcome", func() bool { return a.State().Triggers["delivered"] == 2 })
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	if _, ok := a.Model.WaitFor(30*time.Second, func(r fakemodel.Request) bool {
		return strings.Contains(r.UserText, "[BRIDGE_TRIGGER id=real-2 thread=default]\nafter the prompt\n[/BRIDGE_TRIGGER]")
	}); !ok {
		t.Fatal("the model never got the deferred trigger")
	}
}

// TestClaudeTriggerUntouched: issue #12's first finding. Claude Code
// queries the terminal at start and tmux answers on the pane's input;
// those replies are not typing, so an agent nobody touched is not
// operator-busy, and a trigger to it goes as soon as it is ready — not
// after the 20 s quiet window (it took 22 s before the input tokenizer).
func TestClaudeTriggerUntouched(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }),
		WithSupConfig("activity: {quiet_window: 20s}\ntrigger: {recheck: 200ms, ack_timeout: 20s}\n"))
	if st := a.State(); st.OperatorBusy || st.LastInputAt != 0 {
		t.Fatalf("nobody typed, yet operator_busy %v last_input_at %d: the terminal's replies counted as keys", st.OperatorBusy, st.LastInputAt)
	}
	asked := time.Now()
	res := triggerOneTurn(t, a, "untouched-1", ClaudeAnswerMark+"ok: ", ClaudeReady)
	if took := time.UnixMilli(res.DeliveredAt).Sub(asked); took > 10*time.Second {
		t.Fatalf("delivered %s after the request: it waited for a quiet window nobody's keys opened", took)
	}
	if res.AckedBy != "hook" && res.AckedBy != "activity" {
		t.Fatalf("acked by %q, want the UserPromptSubmit hook or the busy it causes", res.AckedBy)
	}
}
