//go:build linux

package supervisor

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/sup-tmux/sup/supervisor/proc"
	"golang.org/x/sys/unix"
)

// maxPending bounds the input kept while a child is being started.
const maxPending = 64 << 10

// inputRouter decides where input goes: the running child's pty, the prompt
// between runs, or a bounded buffer while a child is being started (so
// piped input and keys typed ahead are not lost). Every write to the pty —
// keys and injections — happens under its lock, so they never interleave.
type inputRouter struct {
	mu      sync.Mutex
	master  *os.File  // the running child's pty master, nil between runs
	keys    chan byte // non-nil while a prompt waits for keys
	pending []byte
	ended   bool // piped input reached its end; each child is told so
}

// route delivers bytes read from the pane.
func (r *inputRouter) route(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.master != nil:
		r.master.Write(p) // Best effort: the child may be exiting.
	case r.keys != nil:
		for _, k := range p {
			select {
			case r.keys <- k:
			default: // more keys than a prompt needs
			}
		}
	default:
		r.pending = append(r.pending, p[:min(len(p), maxPending-len(r.pending))]...)
	}
}

// attach makes master the destination and flushes what arrived meanwhile.
func (r *inputRouter) attach(master *os.File) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.master = master
	if len(r.pending) > 0 {
		master.Write(r.pending) // Best effort, as route.
		r.pending = nil
	}
	if r.ended {
		r.sendEOF()
	}
}

// detach stops delivery to the child that ended.
func (r *inputRouter) detach() {
	r.mu.Lock()
	r.master = nil
	r.mu.Unlock()
}

// prompt sends later keys to keys, dropping any typed before the prompt.
func (r *inputRouter) prompt(keys chan byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(keys) > 0 {
		<-keys
	}
	r.pending = nil
	r.keys = keys
}

func (r *inputRouter) unprompt() {
	r.mu.Lock()
	r.keys = nil
	r.mu.Unlock()
}

// errNoChild is returned by inject between runs.
var errNoChild = errors.New("no child is running")

// inject writes data, then (submit) a separate "\r" after delay: agents
// treat bytes that arrive together as a paste, and an Enter inside a paste
// becomes a newline instead of a submit. A write that cannot finish within
// timeout (the child stopped reading) fails instead of wedging the caller.
func (r *inputRouter) inject(data []byte, submit bool, delay, timeout time.Duration) (int, error) {
	return r.write(nil, data, submit, delay, timeout)
}

// injectTo is inject into one child only: it fails with errNoChild once
// master is no longer the running child's, so a delivery meant for a child
// that ended never types into its successor.
func (r *inputRouter) injectTo(master *os.File, data []byte, submit bool, delay, timeout time.Duration) (int, error) {
	return r.write(master, data, submit, delay, timeout)
}

func (r *inputRouter) write(want *os.File, data []byte, submit bool, delay, timeout time.Duration) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.master == nil || (want != nil && r.master != want) {
		return 0, errNoChild
	}
	r.master.SetWriteDeadline(time.Now().Add(timeout)) // Best effort: a pollable master supports it.
	defer r.master.SetWriteDeadline(time.Time{})
	n, err := r.master.Write(data)
	if err != nil || !submit {
		return n, err
	}
	if len(data) > 0 && delay > 0 {
		time.Sleep(delay)
	}
	m, err := r.master.Write([]byte{'\r'})
	return n + m, err
}

// endOfInput passes the end of piped input on to the child (and to every
// later one) as the terminal EOF character, as util-linux script does, but
// only while the pty is in canonical mode: a TUI in raw mode would read the
// byte as a key (Ctrl-D quits some agents).
func (r *inputRouter) endOfInput() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = true
	if r.master != nil {
		r.sendEOF()
	}
}

func (r *inputRouter) sendEOF() {
	tio, err := proc.Termios(r.master)
	if err != nil || tio.Lflag&unix.ICANON == 0 {
		return
	}
	r.master.Write([]byte{tio.Cc[unix.VEOF]}) // Best effort.
}

// readInput forwards the pane's input until it ends.
func (s *Session) readInput() {
	buf := make([]byte, proc.PumpBufSize)
	for {
		n, err := s.term.in.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.act.Key(time.Now())
			s.mu.Unlock()
			s.in.route(buf[:n])
		}
		if err != nil {
			if !s.term.inTTY {
				s.in.endOfInput()
			}
			close(s.stdinEOF)
			return
		}
	}
}
