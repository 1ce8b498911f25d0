//go:build linux

package supervisor

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/sup-tmux/sup/supervisor/activity"
)

// changes is the session's change signal (issue 29, "Waits watch the
// version"): a channel closed on each change of the facts a waiter may
// wait for — activity, the open prompt, the screen's verdict and text,
// the draft, the lifecycle. The desk's waits (a queued trigger's gates,
// the trigger's ack, the answer's settle and gone) select on it with a
// deadline instead of polling. A waiter takes the channel (wait) before
// it reads the facts, so a change between its read and its select is
// never missed. The channel is made only when someone waits: a change
// nobody waits for costs a lock and a nil check.
type changes struct {
	mu sync.Mutex // a leaf: guards ch only
	ch chan struct{}
	// screenSeen is the time of the last screen verdict the watcher has
	// applied (screenSeen: an answer's "answered" observed), unix
	// nanoseconds: an answer's gone check believes the verdict once it
	// was applied, whatever the activity made of it.
	screenSeen atomic.Int64
}

// wait is the channel the next change closes.
func (c *changes) wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// poke says that the facts changed: every waiter looks again.
func (c *changes) poke() {
	c.mu.Lock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
	c.mu.Unlock()
}

// factsChanged is the one-line poke where the session's facts change.
func (s *Session) factsChanged() { s.changes.poke() }

// Changed: the session's change signal (desk.Reads).
func (p deskPort) Changed() <-chan struct{} { return p.s.changes.wait() }

// screenSeen is the watcher's word after each screen verdict v was
// recorded with the prompt tracker: a dialog sup answered that the screen
// no longer shows is gone, and the activity leaves needs_confirmation
// with the screen's verdict ("answered"; unknown when no rule reads the
// screen) at once, without the ready debounce — a program that read one
// key and cleared its screen may never print again. This is where that
// state change happens, not in the answer's gone check (AnswerAck), which
// only reads. Then every waiter looks again.
func (s *Session) screenSeen(v screenVerdict) {
	defer s.factsChanged()
	defer s.changes.screenSeen.Store(v.At.UnixNano())
	ans := s.display.answeredAt()
	if ans.IsZero() || !v.At.After(ans) || v.Activity == activity.NeedsConfirmation {
		return
	}
	v2, open := s.agent.withPrompt(time.Now())
	// The tracker closes a dialog the screen showed and no longer shows
	// (open.id ""); the activity still says needs_confirmation, from
	// before the answer.
	if open.id != "" || v2.st.Activity != activity.NeedsConfirmation || !v2.st.Since.Before(ans) {
		return
	}
	rule := v.Rule
	if rule == "" {
		rule = "answered"
	}
	s.observe(activity.Signal{Source: activity.SourceScreen, Rule: "screen:" + rule, Activity: v.Activity, Reason: "answered",
		Stuck: activity.Stuck(v.Activity), At: v.At})
}
