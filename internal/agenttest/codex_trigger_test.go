package agenttest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/fakemodel"
	"github.com/sup-tmux/sup/ipc"
)

// TestCodexTrigger: a multi-line trigger reaches real Codex as ONE user
// message holding every line of the envelope, and is acknowledged (Codex
// has no prompt hook here: the busy its turn shows on the screen acks).
func TestCodexTrigger(t *testing.T) {
	t.Parallel()
	a := startReadyCodex(t, WithSupConfig("activity: {quiet_window: 1s}\ntrigger: {ack_timeout: 20s}\n"))
	time.Sleep(1100 * time.Millisecond) // the start-up keys' quiet window
	out, err := a.SupCmd("trigger", "--json", "--id", "cx-1", "--thread", "th", a.Doc, "first line\nsecond line\nthird line")
	if err != nil {
		t.Fatal(err)
	}
	var res ipc.TriggerResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("sup trigger --json: %v: %s", err, out)
	}
	if res.Result != ipc.OutcomeDelivered || res.Attempts != 1 {
		t.Fatalf("trigger: %+v, want delivered in one attempt", res)
	}
	t.Logf("acked by %s", res.AckedBy)
	want := "[BRIDGE_TRIGGER id=cx-1 thread=th]\nfirst line\nsecond line\nthird line\n[/BRIDGE_TRIGGER]"
	r, ok := a.Model.WaitFor(30*time.Second, func(r fakemodel.Request) bool { return !r.Side })
	if !ok || strings.Count(r.UserText, want) != 1 {
		t.Fatalf("the model's first turn has user text %q, want it to hold %q once", r.UserText, want)
	}
	a.WaitScreen(CodexAnswerMark + "ok: ")
	a.WaitScreen(CodexPrompt)
	turns := 0
	for _, r := range a.Model.Requests() {
		if !r.Side && r.UserText != "" {
			turns++
		}
	}
	if turns != 1 {
		t.Fatalf("the model saw %d user turns, want 1 (each line submitted apart?)", turns)
	}
}
