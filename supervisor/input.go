//go:build linux

package supervisor

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sup-tmux/sup/supervisor/proc"
	"golang.org/x/sys/unix"
)

// maxPending bounds the input kept while a child is being started.
const maxPending = 64 << 10

// inputRouter decides where input goes: the running child's pty, the prompt
// between runs, or a bounded buffer while a child is being started (so
// piped input and keys typed ahead are not lost). Every write to the pty —
// keys and injections — happens under its lock, so no two interleave
// inside one write. sup's own writes (write: a paste, the submit delay,
// its Enter) take writing first, one at a time; for a trigger's or an
// answer's the lock itself is not held across the submit delay, so the
// human's keys are not held back by it (issue 29): a key that lands
// between a paste and its Enter is seen by their confirm, which withholds
// the Enter. What the confirm compares is typed, a count bumped under mu
// as the human's keys are routed, never a key's timestamp: a key is
// stamped when the pane's read returns and routed later, so a stamp
// older than the paste can land after it (review of issue 29, finding 1).
//
// Lock order: writing → mu → (check and confirm run under mu) the desk's
// Desk.mu (a trigger's check, Desk.open) and the screen's locks
// (modelReader.mu and the screen model's, an answer's Prompt).
type inputRouter struct {
	writing sync.Mutex // one write of sup's at a time, delay included; taken before mu
	mu      sync.Mutex
	master  *os.File  // the running child's pty master, nil between runs
	keys    chan byte // non-nil while a prompt waits for keys
	pending []byte
	ended   bool // piped input reached its end; each child is told so
	// typed counts the routes that carried a key of the human's (bumped
	// under mu, read atomically): a confirm that sees it moved since its
	// check knows a key landed between the paste and its Enter.
	typed atomic.Uint64
	// sleep sleeps the submit delay (time.Sleep when nil; a test holds
	// the write in its delay with it).
	sleep func(time.Duration)
}

// route delivers bytes read from the pane; operator: they carry a key of
// the human's (not only the terminal's reports), counted in typed.
func (r *inputRouter) route(p []byte, operator bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if operator {
		r.typed.Add(1)
	}
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

// errNoChild is returned by a write between runs, or once the child it
// was meant for is no longer the running one.
var errNoChild = errors.New("no child is running")

// inject writes data, then (submit) a separate "\r" after delay: agents
// treat bytes that arrive together as a paste, and an Enter inside a paste
// becomes a newline instead of a submit. A write that cannot finish within
// timeout (the child stopped reading) fails instead of wedging the caller.
func (r *inputRouter) inject(data []byte, submit bool, delay, timeout time.Duration) (int, error) {
	n, _, err := r.write(nil, delay, timeout, func() ([]byte, bool, error) { return data, submit, nil }, nil)
	return n, err
}

// replyTo writes sup's reply to a terminal query into master's input, if
// master is still the running child's (a reply meant for a child that
// ended must not reach its successor).
func (r *inputRouter) replyTo(master *os.File, data []byte) {
	r.write(master, 0, replyTimeout, func() ([]byte, bool, error) { return data, false, nil }, nil) // Best effort: the child may be gone.
}

// replyTo's bound on a reply into a child that does not read its input.
const replyTimeout = time.Second

// write is the one write of keys into the child's pty (injections,
// triggers, answers and sup's terminal replies; the pane's own keys go
// through route, under the same lock). Under the router's lock, so no key
// from the pane and no other write lands in between, it calls check,
// which says what to write — data, and whether a separate "\r" follows
// after delay — or refuses with an error returned as is, nothing written.
// want, when not nil, is the child the write is meant for: once it is not
// the running child's master the write fails with errNoChild, so a write
// meant for a child that ended never types into its successor. A write
// that cannot finish within timeout fails with os.ErrDeadlineExceeded. at
// is when the last byte went (the "\r" when submitting).
//
// With confirm, the delay is slept without the router's lock (only
// writing is held, so no other write of sup's comes between): the human's
// keys go through meanwhile. The lock is taken again for the "\r":
// confirm runs under it right before, and an error from it is returned as
// is with the data written and the "\r" withheld (the desk's confirm
// withholds it when the human typed in the delay, a dialog opened or sup
// began to stop). A child that ended in the delay gets no "\r" either
// (errNoChild, after the data went). Without confirm (inject) the lock is
// held across the delay: nothing would tell a key of the human's from
// the text, and the Enter would send both.
func (r *inputRouter) write(want *os.File, delay, timeout time.Duration, check func() ([]byte, bool, error), confirm func() error) (n int, at time.Time, err error) {
	r.writing.Lock()
	defer r.writing.Unlock()
	r.mu.Lock()
	master := r.master
	if master == nil || (want != nil && master != want) {
		r.mu.Unlock()
		return 0, time.Time{}, errNoChild
	}
	data, submit, err := check()
	if err != nil {
		r.mu.Unlock()
		return 0, time.Time{}, err
	}
	n, err = writeBy(master, data, timeout)
	if err != nil || !submit {
		r.mu.Unlock()
		return n, time.Now(), err
	}
	// Without confirm nothing would see a key of the human's in the
	// delay, and the Enter would submit it with the text (inject): such a
	// write keeps the lock across the delay, as it always did.
	if confirm != nil {
		r.mu.Unlock()
	}
	if len(data) > 0 && delay > 0 {
		if r.sleep != nil {
			r.sleep(delay)
		} else {
			time.Sleep(delay)
		}
	}
	if confirm != nil {
		r.mu.Lock()
	}
	defer r.mu.Unlock()
	if r.master != master {
		return n, time.Time{}, errNoChild
	}
	if confirm != nil {
		// A dialog that opened during the delay must not get the Enter:
		// Gemini CLI draws its prompt for a moment before its trust
		// dialog, whose default is "Trust folder".
		if err := confirm(); err != nil {
			return n, time.Time{}, err
		}
	}
	at = time.Now()
	m, err := writeBy(master, []byte{'\r'}, timeout)
	return n + m, at, err
}

// writeBy writes data to master, failing with os.ErrDeadlineExceeded when
// the child does not read it within timeout.
func writeBy(master *os.File, data []byte, timeout time.Duration) (int, error) {
	master.SetWriteDeadline(time.Now().Add(timeout)) // Best effort: a pollable master supports it.
	defer master.SetWriteDeadline(time.Time{})
	return master.Write(data)
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

// readPane forwards the pane's input until it ends, through the
// paneReader that tells the human's keys from the terminal's reports.
func readPane(s *Session) {
	r := newPaneReader(s)
	buf := make([]byte, proc.PumpBufSize)
	for {
		n, err := s.term.in.Read(buf)
		if n > 0 {
			r.feed(buf[:n], time.Now())
		}
		if err != nil {
			r.end()
			if !s.term.inTTY {
				s.in.endOfInput()
			}
			close(s.stdinEOF)
			return
		}
	}
}

// keyPressed books a key from the human; a key that may end a turn or
// answer a prompt (interrupt) makes the screen be read again at once,
// since no hook may say what it did.
func (s *Session) keyPressed(at time.Time, interrupt bool) {
	s.agent.key(at, interrupt)
	if interrupt {
		s.prompts.keysIn(at)
	}
	s.display.lookAgain()
}

// release ends the hook's hold for keys sup typed into a prompt (an
// answer, from any client): the same as the pane's answering key, but
// not the human typing.
func (s *Session) release(at time.Time) {
	s.agent.releaseHold()
	s.prompts.keysIn(at)
	s.display.noteAnswer(at)
	s.display.lookAgain()
}
