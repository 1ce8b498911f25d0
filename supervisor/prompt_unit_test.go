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

// A dialog of another rule drawn after keys that may answer the first
// (an answer, Enter in the pane) is the next prompt, with its own id —
// Claude's onboarding goes from the theme picker to the security notes
// without leaving needs_confirmation — while a different rule's look
// without such keys (a redraw) keeps the id.
func TestUnitPromptNextDialogAfterKeys(t *testing.T) {
	var tr promptTracker
	t0 := time.Unix(1000, 0)
	st := activity.State{Activity: activity.NeedsConfirmation, Reason: "question", PromptSince: t0}
	tr.noteScreen(screenVerdict{Rule: "selection", Activity: activity.NeedsConfirmation, At: t0})
	theme := tr.open(st)
	tr.noteScreen(screenVerdict{Rule: "dialog", Activity: activity.NeedsConfirmation, At: t0.Add(100 * time.Millisecond)})
	if p := tr.open(st); p.id != theme.id {
		t.Fatalf("a redraw read by another rule, no key: id %s, want %s", p.id, theme.id)
	}
	tr.keysIn(t0.Add(time.Second))
	tr.noteScreen(screenVerdict{Rule: "dialog", Activity: activity.NeedsConfirmation, At: t0.Add(1100 * time.Millisecond)})
	if p := tr.open(st); p.id != theme.id {
		t.Fatalf("the same rule after the keys (the dialog still up): id %s, want %s", p.id, theme.id)
	}
	tr.noteScreen(screenVerdict{Rule: "press_enter", Activity: activity.NeedsConfirmation, At: t0.Add(1200 * time.Millisecond)})
	notes := tr.open(st)
	if notes.id == theme.id || notes.id == "" {
		t.Fatalf("the next dialog after the answer kept id %s", notes.id)
	}
	tr.noteScreen(screenVerdict{Rule: "selection", Activity: activity.NeedsConfirmation, At: t0.Add(1300 * time.Millisecond)})
	if p := tr.open(st); p.id != notes.id {
		t.Fatalf("another rule's look with no key since the next dialog: id %s, want %s", p.id, notes.id)
	}
}
