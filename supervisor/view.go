//go:build linux

package supervisor

import (
	"sync/atomic"
	"time"

	"github.com/sup-tmux/sup/supervisor/screen"
)

// view is what one child shows: its screen model, fed from the pump's tap,
// and the stream signals `state` reports, kept current by the model's
// signal callback so that `state` never renders a screen.
type view struct {
	// lineMode: the profile has no screen rules, so the kernel's word on
	// the foreground process decides (specs/detection.md, "Any program").
	lineMode       bool
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
// into a bounded queue and returns).
func (s *Session) tap(v *view) func([]byte) {
	return func(p []byte) {
		s.lastOutput.Store(time.Now().UnixMilli())
		v.model.Feed(p)
	}
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
