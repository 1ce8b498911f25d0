//go:build linux

package agenttest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/ipc"
)

// triggerOneTurn sends a three-line trigger with `sup trigger` and checks
// that it was delivered in one attempt and that the model stand-in got it
// as ONE user turn holding the whole envelope (an agent may wrap it, as
// Claude Code wraps pastes in <pasted_content> tags). answer is the screen
// text that shows the turn ended.
func triggerOneTurn(t *testing.T, a *Agent, id, answer, ready string) ipc.TriggerResult {
	t.Helper()
	out, err := a.SupCmd("trigger", "--json", "--id", id, "--thread", "th", a.Doc, "first line\nsecond line\nthird line")
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
	want := "[BRIDGE_TRIGGER id=" + id + " thread=th]\nfirst line\nsecond line\nthird line\n[/BRIDGE_TRIGGER]"
	r, ok := a.Model.WaitFor(30*time.Second, func(r fakemodel.Request) bool { return !r.Side })
	if !ok || strings.Count(r.UserText, want) != 1 {
		t.Fatalf("the model's first turn has user text %q, want it to hold %q once", r.UserText, want)
	}
	a.WaitScreen(answer)
	a.WaitScreen(ready)
	turns := 0
	for _, r := range a.Model.Requests() {
		if !r.Side && r.UserText != "" {
			turns++
		}
	}
	if turns != 1 {
		t.Fatalf("the model saw %d user turns, want 1 (each line submitted apart?)", turns)
	}
	return res
}
