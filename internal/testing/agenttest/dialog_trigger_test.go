//go:build linux

package agenttest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// claudeAutoModeOffer is the auto-mode dialog's question and last option.
const (
	claudeAutoModeOffer = "Make auto mode your default permission mode?"
	claudeAutoModeNo    = "No, keep manual mode"
)

// TestClaudeUnseenDialogHoldsTrigger: real Claude Code shows its auto-mode
// offer at start (no rule names it, its footer comes ~20 s late): the
// session is needs_confirmation within 3 s of the dialog appearing (the
// packs' structural rule), summary the dialog's question, and in `sup
// queue`; a trigger sent meanwhile is deferred, leaves the dialog
// unanswered and reaches no model, and is delivered once a human answers.
func TestClaudeUnseenDialogHoldsTrigger(t *testing.T) {
	t.Parallel()
	a := StartClaude(t, testutil.NewTmux(t), WithClaudeAutoModeOffer(),
		WithSupConfig("activity: {quiet_window: 1s}\ntrigger: {recheck: 200ms, ack_timeout: 20s}\n"))
	shown := a.WaitScreenAt(claudeAutoModeNo)
	var st ipc.State
	testutil.WaitUntil(t, ScreenTimeout, "needs_confirmation", func() bool {
		st = a.State()
		return st.Activity == "needs_confirmation"
	})
	// Seen at all, and soon: the ≤ 3 s goal is the bench's figure (row 6,
	// measured quiet), this bound includes `sup state` starting under load.
	if d := time.Since(shown); d > 10*time.Second {
		t.Errorf("needs_confirmation %v after the dialog appeared, want ≤ 10s", d.Round(time.Millisecond))
	}
	if st.Reason != "question" || st.Summary != claudeAutoModeOffer {
		t.Errorf("at the auto-mode offer: reason %q summary %q, want question and the dialog's question", st.Reason, st.Summary)
	}
	out, err := a.SupCmd("queue", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var q []ipc.State
	if err := json.Unmarshal([]byte(out), &q); err != nil || len(q) != 1 || q[0].TmuxPane != a.Pane {
		t.Fatalf("sup queue --json: %s (%v), want this session", out, err)
	}

	out, err = a.SupCmd("trigger", "--json", "--no-wait", "--id", "dialog-1", a.Doc, "after the dialog")
	if err != nil {
		t.Fatal(err)
	}
	var res ipc.TriggerResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Result != ipc.OutcomeDeferred {
		t.Fatalf("trigger at the dialog: %s (%v), want deferred", out, err)
	}
	time.Sleep(2 * time.Second)
	if !strings.Contains(a.Screen(), claudeAutoModeOffer) {
		t.Fatalf("the trigger answered the dialog:\n%s", a.Screen())
	}
	for _, r := range a.Model.Requests() {
		if strings.Contains(r.UserText, "after the dialog") {
			t.Fatalf("the trigger reached the model while the dialog was open: %+v", r)
		}
	}

	// The human answers it; the trigger goes. Its turn takes 3 s, as a
	// real model's does: without hooks the ack is the screen turning busy,
	// and an instant fake turn could start and end between two looks of
	// a loaded supervisor (a CI run: ACK_TIMEOUT with the reply already on
	// screen — specs/triggers.md, "Acknowledgement").
	a.Model.Queue(fakemodel.Turn{Text: "done", Delay: 3 * time.Second})
	chooseAndAnswer(t, a, firstRunAnswer{name: "auto-mode offer", text: claudeAutoModeOffer, keys: []string{"Enter"}, choose: "❯ " + claudeAutoModeNo})
	testutil.WaitUntil(t, 60*time.Second, "the deferred trigger's delivery", func() bool { return a.State().Triggers["delivered"] == 1 })
	if _, ok := a.Model.WaitFor(30*time.Second, func(r fakemodel.Request) bool {
		return strings.Contains(r.UserText, "[BRIDGE_TRIGGER id=dialog-1 thread=default]\nafter the dialog\n[/BRIDGE_TRIGGER]")
	}); !ok {
		t.Fatal("the model never got the deferred trigger")
	}
}
