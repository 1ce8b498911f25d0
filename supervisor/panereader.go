//go:build linux

package supervisor

import (
	"sync"
	"time"

	"github.com/sup-tmux/sup/supervisor/paneinput"
)

// paneReader is the pane's input on its way to the child: every byte goes
// on unchanged and in order, but only keys, pastes and mouse events count
// as the human's activity. A terminal's replies to the agent's queries
// (tmux answers DA, cursor and colour queries on the pane's input) and
// focus reports are not typing: counting them made an untouched Claude
// Code look operator-busy for 20 s (issue #12; specs/detection.md, "What
// counts as a keystroke").
//
// mu orders Feed, the timer's Flush and the routing of their bytes, so
// bytes released by a timeout never overtake later ones. Its lock is
// taken before the input router's.
type paneReader struct {
	s     *Session
	mu    sync.Mutex
	tok   *paneinput.Tokenizer
	timer *time.Timer // releases a held, incomplete sequence as keys
	out   []byte
}

func newPaneReader(s *Session) *paneReader {
	r := &paneReader{s: s, tok: paneinput.New(0)}
	r.timer = time.AfterFunc(time.Hour, r.expire)
	r.timer.Stop()
	return r
}

// feed takes one read of the pane, stamped when the read returned.
func (r *paneReader) feed(p []byte, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deliver(r.tok.Feed(p, now), now)
}

// expire is the timer: what is still held after the timeout is keys, as a
// terminal would read a lone Esc.
func (r *paneReader) expire() {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	r.deliver(r.tok.Flush(now), now)
}

// end releases whatever is held when the input ends.
func (r *paneReader) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer.Stop()
	r.deliver(r.tok.Flush(time.Now().Add(time.Hour)), time.Now())
}

// deliver routes the tokens' bytes in one write and books what they were.
// r.mu is held.
func (r *paneReader) deliver(toks []paneinput.Token, now time.Time) {
	r.out = r.out[:0]
	operator, interrupt := false, false
	for _, t := range toks {
		r.out = append(r.out, t.Raw...)
		switch {
		case t.IsOperator():
			operator = true
			interrupt = interrupt || isInterrupt(t)
		case t.Kind == paneinput.Focus:
			r.s.agent.setFocused(t.Name == paneinput.NameFocusIn, now)
		case t.Kind == paneinput.Report:
			r.s.log.Debug("terminal_report", "name", t.Name, "bytes", len(t.Raw))
		}
	}
	if operator {
		r.s.keyPressed(now, interrupt)
	}
	if len(r.out) > 0 {
		r.s.in.route(r.out, operator)
	}
	if d, ok := r.tok.Deadline(); ok {
		r.timer.Reset(max(time.Until(d), 0))
	} else {
		r.timer.Stop()
	}
}

// isInterrupt: Esc or Ctrl-C, the keys that stop an agent's turn (Claude
// Code fires no hook for them), or Enter and the digits and letters that
// answer a prompt: after them the screen says more than the last hook.
func isInterrupt(t paneinput.Token) bool {
	if t.Kind != paneinput.Key || len(t.Raw) != 1 {
		return false
	}
	switch c := t.Raw[0]; {
	case c == 0x1b, c == 0x03, c == '\r':
		return true
	case c >= '0' && c <= '9', c == 'y', c == 'n', c == 'Y', c == 'N':
		return true
	}
	return false
}
