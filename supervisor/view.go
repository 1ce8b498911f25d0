//go:build linux

package supervisor

import (
	"sync/atomic"
	"time"

	"github.com/sup-tmux/sup/supervisor/proc"
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
	replies        *termreply.Responder
	model          *screen.Model
	kick           chan struct{} // the model caught up: time to look
	title          atomic.Pointer[string]
	bracketedPaste atomic.Bool
}

func newView(cols, rows int, lineMode bool) *view {
	v := &view{kick: make(chan struct{}, 1), lineMode: lineMode}
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

func (v *view) titleText() string {
	if t := v.title.Load(); t != nil {
		return *t
	}
	return ""
}

// tap is the pump's tap for the running child: it never blocks (Feed copies
// into a bounded queue and returns) — but for a cursor query when sup
// answers the queries itself, which waits for the model to catch up.
func (s *Session) tap(c *proc.Child, v *view) func([]byte) {
	return func(p []byte) {
		s.lastOutput.Store(time.Now().UnixNano())
		s.outBytes.Add(int64(len(p)))
		v.model.Feed(p)
		if v.replies != nil {
			s.answerQueries(c, v.replies.Feed(p))
		}
	}
}

// answerQueries writes sup's replies to the child's queries (DA1, DSR,
// cursor position, OSC 10/11) when nobody else can: headless, detached or
// piped, some agents wait for them (specs/detection.md, "Terminal queries
// and replies"). Each is logged as sup's.
func (s *Session) answerQueries(c *proc.Child, replies []termreply.Reply) {
	for _, r := range replies {
		s.log.Info("terminal_reply", "name", r.Name, "by", "sup")
		go s.in.replyTo(c.Master(), r.Bytes)
	}
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

// showView makes v the screen `screen` and `state` report, retiring the
// previous child's.
func (s *Session) showView(v *view) {
	if old := s.view.Swap(v); old != nil {
		old.model.Close()
	}
}

// lineMode reports whether the current child's profile has no screen
// rules (a shell, any plain program).
func (s *Session) lineMode() bool {
	v := s.view.Load()
	return v != nil && v.lineMode
}

// lastOutputAt is when the child last wrote output (the zero time: never).
// Nanoseconds: a line-mode ack compares it with the Enter's own time.
func (s *Session) lastOutputAt() time.Time {
	if ns := s.lastOutput.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}
