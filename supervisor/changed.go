//go:build linux

package supervisor

import (
	"sync/atomic"
	"time"

	"github.com/sup-tmux/sup/supervisor/activity"
)

// changes is the session's one change signal (issue 29, "Waits watch the
// version"): a channel closed on each publication of the state owner (a
// new snapshot: activity, the open prompt, the screen's verdict, the
// draft, the lifecycle, the child…) and on each change of the facts a
// waiter may wait for outside it (the screen's text, output: factsChanged).
// The desk's waits (a queued trigger's gates,
// the trigger's ack, the answer's settle and gone) select on it with a
// deadline instead of polling. A waiter takes the channel (wait) before
// it reads the facts, so a change between its read and its select is
// never missed. The channel is made only when someone waits: a change
// nobody waits for costs one atomic swap. No lock: a waiter installs a
// channel with a compare-and-swap, a poke swaps it out and closes it, so
// a waiter either holds the channel the next poke closes or installs one
// after it.
type changes struct {
	ch atomic.Pointer[chan struct{}]
}

// wait is the channel the next change closes.
func (c *changes) wait() <-chan struct{} {
	for {
		if p := c.ch.Load(); p != nil {
			return *p
		}
		ch := make(chan struct{})
		if c.ch.CompareAndSwap(nil, &ch) {
			return ch
		}
	}
}

// poke says that the facts changed: every waiter looks again.
func (c *changes) poke() {
	if p := c.ch.Swap(nil); p != nil {
		close(*p)
	}
}

// factsChanged is the poke for a change of facts outside the snapshot
// (the screen's text, output bytes, a look asked for); every publication
// of the state owner pokes by itself (publishLocked).
func (s *Session) factsChanged() { s.changes.poke() }

// Changed: the session's change signal (desk.Reads).
func (p deskPort) Changed() <-chan struct{} { return p.s.changes.wait() }

// screenAnswered is what a screen verdict v says of a dialog sup answered
// at ans (zero: never), given the open prompt and the presented activity
// st once v is recorded: a dialog the screen showed and no longer shows
// after the answer (the tracker closed it: open.id "") is gone, and the
// activity leaves needs_confirmation with the screen's verdict
// ("answered"; unknown when no rule reads the screen) at once, without
// the ready debounce — a program that read one key and cleared its screen
// may never print again. ok: sig is that signal. The state owner applies
// it in the update that records v (promptHandle.noteScreen), so no
// snapshot shows the verdict without it; the answer's ack (AnswerAck)
// only reads the result.
func screenAnswered(open openPrompt, st activity.State, v screenVerdict, ans time.Time) (sig activity.Signal, ok bool) {
	if ans.IsZero() || !v.At.After(ans) || v.Activity == activity.NeedsConfirmation {
		return sig, false
	}
	// The activity still says needs_confirmation, from before the answer.
	if open.id != "" || st.Activity != activity.NeedsConfirmation || !st.Since.Before(ans) {
		return sig, false
	}
	rule := v.Rule
	if rule == "" {
		rule = "answered"
	}
	return activity.Signal{Source: activity.SourceScreen, Rule: "screen:" + rule, Activity: v.Activity, Reason: "answered",
		Stuck: activity.Stuck(v.Activity), At: v.At}, true
}

// noteVerdict records the screen classifier's verdict v with the prompt
// tracker and, in the same update, closes a dialog sup answered that v no
// longer shows (screenAnswered); the activity event and the counter
// follow when it moved the activity.
func (s *Session) noteVerdict(v screenVerdict) {
	sig, changed := s.prompts.noteScreen(v, s.display.answeredAt())
	s.observed(sig, changed)
}
