//go:build linux

package supervisor

import (
	"io"
	"os"
	"sync"

	"golang.org/x/term"
)

// modeReset turns off what a crashed TUI may have left on: alt screen, hidden
// cursor, mouse reporting, bracketed paste, focus events, colours. Without it
// sup's "agent exited" line could land on an invisible alt screen and a shell
// after sup would receive mouse escape sequences as input.
const modeReset = "\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1004l\x1b[0m"

// terminal is the outer terminal sup runs in (normally a tmux pane).
type terminal struct {
	in     *os.File
	out    io.Writer
	inTTY  bool
	outTTY bool

	mu       sync.Mutex
	oldState *term.State
}

func newTerminal(in *os.File, out io.Writer) *terminal {
	t := &terminal{in: in, out: out}
	t.inTTY = in != nil && term.IsTerminal(int(in.Fd()))
	if f, ok := out.(*os.File); ok {
		t.outTTY = term.IsTerminal(int(f.Fd()))
	}
	return t
}

// makeRaw puts the input terminal in raw mode so every key, Ctrl-C included,
// goes to the agent instead of generating signals for sup.
func (t *terminal) makeRaw() error {
	if !t.inTTY {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	st, err := term.MakeRaw(int(t.in.Fd()))
	if err != nil {
		return err
	}
	t.oldState = st
	return nil
}

// resetModes undoes what the child may have left behind on the screen.
func (t *terminal) resetModes() {
	if t.outTTY {
		io.WriteString(t.out, modeReset) // Best effort: the pane may be gone.
	}
}

// restore returns the terminal to how sup found it. Safe to call many times
// and from any goroutine (the panic path calls it too).
func (t *terminal) restore() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.oldState != nil {
		term.Restore(int(t.in.Fd()), t.oldState) // Best effort: the tty may be gone.
		t.oldState = nil
		t.resetModes()
	}
}

// say writes one of sup's own lines. Only called while no child runs.
func (t *terminal) say(line string) {
	if t.outTTY {
		line = "\r\x1b[K" + line + "\r"
	}
	io.WriteString(t.out, line+"\n") // Best effort: the pane may be gone.
}

// status rewrites the current line (a countdown) on a terminal; elsewhere
// it prints the line once, as logs are read top to bottom.
func (t *terminal) status(line string, first bool) {
	if t.outTTY {
		io.WriteString(t.out, "\r\x1b[K"+line) // Best effort.
	} else if first {
		io.WriteString(t.out, line+"\n") // Best effort.
	}
}
