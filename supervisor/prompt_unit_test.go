//go:build linux

package supervisor

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/supervisor/activity"
)

// A dialog announced by a signal alone (Codex's state=blocked, before it
// draws its approval) is open but not shown: an answer waits for the
// drawing (desk's settle reads shownAt). The drawn dialog then starts the
// episode, with the same prompt id.
func TestUnitPromptUndrawnSignal(t *testing.T) {
	var tr promptTracker
	t0 := time.Unix(1000, 0)
	tr.noteScreen(screenVerdict{Rule: "state_working", Activity: activity.Busy, At: t0})
	st := activity.State{Activity: activity.NeedsConfirmation, Reason: "permission", PromptSince: t0.Add(time.Second)}
	tr.noteScreen(screenVerdict{Rule: "state_blocked", Activity: activity.NeedsConfirmation, At: st.PromptSince, Undrawn: true})
	p := tr.open(st)
	if p.id == "" || !p.shownAt.IsZero() || tr.shown(p.id) {
		t.Fatalf("announced, not drawn: %+v shown %v; want an id, not shown", p, tr.shown(p.id))
	}
	drawn := st.PromptSince.Add(500 * time.Millisecond)
	tr.noteScreen(screenVerdict{Rule: "approval", Activity: activity.NeedsConfirmation, At: drawn})
	q := tr.open(st)
	if q.id != p.id || !q.shownAt.Equal(drawn) || !tr.shown(q.id) {
		t.Fatalf("drawn: %+v shown %v; want id %s shown at %v", q, tr.shown(q.id), p.id, drawn)
	}
}
