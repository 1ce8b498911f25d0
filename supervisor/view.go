//go:build linux

package supervisor

import (
	"sync/atomic"
	"time"

	"github.com/sup-tmux/sup/supervisor/screen"
	"github.com/sup-tmux/sup/supervisor/termreply"
)

// view is what one child shows: its screen model, fed from the pump's tap,
// and the stream signals `state` reports, kept current by the model's
// signal callback so that `state` never renders a screen.
type view struct {
	// lineMode: the profile has no screen rules, so the kernel's word on
	// the foreground process decides (specs/detection.md, "Any program").
	lineMode bool
	// replies answers the child's terminal queries when no terminal can
	// (sup's stdin is not one): nil when the pane's terminal answers.
	replies *termreply.Responder
	model   *screen.Model
	kick    chan struct{} // the model caught up: time to look
	// activity: the tracker's state changed (activityChanged); the stall
	// watch, parked while the agent is not busy, looks whether to resume.
	activity       chan struct{}
	title          atomic.Pointer[string]
	bracketedPaste atomic.Bool
}

func newView(cols, rows int, lineMode bool) *view {
	v := &view{kick: make(chan struct{}, 1), activity: make(chan struct{}, 1), lineMode: lineMode}
	v.model = screen.NewModel(cols, rows, screen.Options{OnSignal: v.signal, OnIdle: v.idle})
	return v
}

func (v *view) signal(sig screen.Signal) {
	switch sig.Kind {
	case screen.SignalTitle:
		t := sig.Value
		v.title.Store(&t)
	case screen.SignalBracketedPaste:
		v.bracketedPaste.Store(sig.Value == "on")
	}
}

func (v *view) idle() {
	select {
	case v.kick <- struct{}{}:
	default: // a look is already due
	}
}

// activityChanged tells the stall watch the state changed; it never blocks.
func (v *view) activityChanged() {
	select {
	case v.activity <- struct{}{}:
	default: // one is pending
	}
}

func (v *view) titleText() string {
	if t := v.title.Load(); t != nil {
		return *t
	}
	return ""
}

// newReplies is the responder of a headless child: the cursor it reports
// is the screen model's, once the model has read everything before the
// query.
func newReplies(m *screen.Model) *termreply.Responder {
	return termreply.New(func() (int, int) {
		m.Sync()
		sn := m.Snapshot()
		return sn.CursorCol, sn.CursorRow
	})
}

// display is what the current (or last) child shows, and the output
// clock: when a child last wrote and when sup last typed an answer. It is
// lock-free (atomics): spawn shows each child's view, the pump's tap
// stamps the output, and everyone reads.
type display struct {
	cur      atomic.Pointer[view]
	lastOut  atomic.Int64 // unix ns of the child's last output (see lastOutputAt)
	outBytes atomic.Int64 // bytes the children wrote in all (the loop guard's line-mode progress)
	answered atomic.Int64 // unix ns of sup's last answer into a prompt (answeredAt)
}

// view is the current (or last) child's view; nil before the first.
func (d *display) view() *view { return d.cur.Load() }

// show makes v the screen `screen` and `state` report, retiring the
// previous child's.
func (d *display) show(v *view) {
	if old := d.cur.Swap(v); old != nil {
		old.model.Close()
	}
}

// snapshot is the current (or last) child's screen; false before any ran.
func (d *display) snapshot() (screen.Snapshot, bool) {
	v := d.view()
	if v == nil {
		return screen.Snapshot{}, false
	}
	return v.model.Snapshot(), true
}

// synced is snapshot as of every byte the child has written so far: it
// waits for the model to apply what is queued (see text). A crash's
// summary reads it: the child's last words (the error it died of) were
// drained from the pty before the exit is handled, but under load they
// still sat in the model's queue, and the summary named the line before
// them (TestE2ECrashLoopWaits in a whole run).
func (d *display) synced() (screen.Snapshot, bool) {
	v := d.view()
	if v == nil {
		return screen.Snapshot{}, false
	}
	v.model.Sync()
	return v.model.Snapshot(), true
}

// text is the screen's text as of every byte the child has written so
// far, "" before any child ran. It waits for the model to apply what is
// queued: whoever decides from the text (a trigger's ack marker, an
// answer's option lines) must not read a screen the parser has not caught
// up with — a loaded CI run acked a trigger "by output" while the marker
// printed with that output still sat in the model's queue
// (TestSessionTriggerPasteThenEnter).
func (d *display) text() string {
	snap, _ := d.synced() // a zero Snapshot's Text is "" before any child ran
	return snap.Text
}

// lineMode reports whether the current child's profile has no screen
// rules (a shell, any plain program).
func (d *display) lineMode() bool {
	v := d.view()
	return v != nil && v.lineMode
}

// lookAgain makes the foreground rule and the screen look again, though
// the screen may not change: a verdict the tracker set aside (a hook's
// hold) is only applied when a look produces it again.
func (d *display) lookAgain() {
	if v := d.view(); v != nil {
		v.idle()
	}
}

// wrote stamps n bytes of output from the child. The pump's tap calls it
// before feeding them to the model, so that a look the parsed bytes wake
// sees them as recent output: stamped after, a look in between could
// take a ready that the quiet debounce should still hold. The cost is a
// reader who sees the stamp a moment before the bytes are queued: text
// syncs the model without them, and a trigger's ack then says "output"
// where it would have said "marker" (the same delivery, another label).
func (d *display) wrote(n int) {
	d.lastOut.Store(time.Now().UnixNano())
	d.outBytes.Add(int64(n))
}

// lastOutputAt is when the child last wrote output (the zero time: never).
// Nanoseconds: a line-mode ack compares it with the Enter's own time.
func (d *display) lastOutputAt() time.Time { return unixNano(d.lastOut.Load()) }

// noteAnswer stamps an answer sup typed at at.
func (d *display) noteAnswer(at time.Time) { d.answered.Store(at.UnixNano()) }

// answeredAt is when sup last typed an answer (zero: never).
func (d *display) answeredAt() time.Time { return unixNano(d.answered.Load()) }

func unixNano(ns int64) time.Time {
	if ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}
