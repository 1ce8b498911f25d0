package screen

import (
	"time"

	"github.com/charmbracelet/x/ansi"
)

// execute handles C0 controls (also those met inside an escape sequence,
// which terminals execute in place).
func (s *Screen) execute(b byte) {
	s.haveLast = false
	switch b {
	case 0x07: // BEL
		s.bell()
	case 0x08: // BS
		s.backspace()
	case 0x09: // HT
		s.tab(1)
	case 0x0a, 0x0b, 0x0c: // LF, VT, FF: all line feeds, as in xterm
		// A pending wrap survives a line feed (tmux keeps its cursor past
		// the last column), so the next printable wraps once more.
		s.index()
	case 0x0d: // CR
		s.x = 0
		s.pendingWrap = false
	case 0x0e: // SO: G1 into GL
		s.gl = 1
	case 0x0f: // SI: G0 into GL
		s.gl = 0
	}
}

// bell counts a BEL in the ground state (one ending an OSC is a terminator,
// handled in write.go, not a bell).
func (s *Screen) bell() {
	s.sig.Bells++
	s.sig.LastBell = time.Now()
	s.emit(SignalBell, "")
}

// backspace moves left one column. From a pending wrap it stays on the last
// column; from column 0 of a row that autowrap continued it goes back to
// the end of the previous row (both as tmux does).
func (s *Screen) backspace() {
	if s.pendingWrap {
		s.pendingWrap = false
		return
	}
	if s.x > 0 {
		s.x--
		return
	}
	if s.y > 0 && s.buf.lines[s.y-1].wrapped {
		s.y--
		s.x = s.cols - 1
	}
}

// tab moves to the n-th next tab stop, or the last column. A pending wrap
// is left alone (tmux): a tab never wraps.
func (s *Screen) tab(n int) {
	if s.pendingWrap {
		return
	}
	for ; n > 0 && s.x < s.cols-1; n-- {
		s.x++
		for s.x < s.cols-1 && !s.tabs[s.x] {
			s.x++
		}
	}
}

// backTab moves to the n-th previous tab stop, or column 0 (CBT).
func (s *Screen) backTab(n int) {
	s.pendingWrap = false
	for ; n > 0 && s.x > 0; n-- {
		s.x--
		for s.x > 0 && !s.tabs[s.x] {
			s.x--
		}
	}
}

// index moves down one row, scrolling the region when on its bottom row.
func (s *Screen) index() {
	switch {
	case s.y == s.bottom:
		s.scrollUp(s.top, s.bottom, 1)
	case s.y < s.rows-1:
		s.y++
	}
}

// reverseIndex moves up one row, scrolling the region down on its top row.
// Like a line feed it keeps a pending wrap.
func (s *Screen) reverseIndex() {
	switch {
	case s.y == s.top:
		s.scrollDown(s.top, s.bottom, 1)
	case s.y > 0:
		s.y--
	}
}

// esc handles ESC sequences (two or three bytes).
func (s *Screen) esc(cmd ansi.Cmd) {
	s.haveLast = false
	inter := cmd.Intermediate()
	final := cmd.Final()
	switch inter {
	case 0:
	case '(', ')':
		// Designate G0 / G1. Only "0" (DEC graphics) differs from ASCII
		// for our purposes; every other set is shown as ASCII.
		cs := charsetASCII
		if final == '0' {
			cs = charsetDEC
		}
		if inter == '(' {
			s.g[0] = cs
		} else {
			s.g[1] = cs
		}
		return
	case '#':
		if final == '8' {
			s.alignmentTest()
		}
		return
	default:
		return // G2/G3 designations, S7C1T and the like: nothing to show
	}
	switch final {
	case '7': // DECSC
		s.saveCursor()
	case '8': // DECRC
		s.restoreCursor()
	case 'D': // IND
		s.index()
	case 'E': // NEL
		s.pendingWrap = false
		s.x = 0
		s.index()
	case 'M': // RI
		s.reverseIndex()
	case 'H': // HTS
		s.tabs[s.x] = true
	case 'c': // RIS
		s.fullReset()
	}
	// ESC = / ESC > (keypad), ESC \ (a stray ST) and the rest: ignored.
}

// fullReset is RIS as tmux does it: modes, margins, tabs, rendition and
// saved cursor back to defaults, the current screen cleared, the cursor
// home. Like tmux it stays on the alternate screen if it was there (the
// main screen comes back on ?1049l). Mode signals are reported off.
func (s *Screen) fullReset() {
	s.tabs = defaultTabs(s.cols, nil)
	s.top, s.bottom = 0, s.rows-1
	s.autowrap, s.cursorVisible, s.cursorKeys = true, true, false
	s.origin, s.insert, s.synchronized = false, false, false
	s.pen = attr{}
	s.g, s.gl = [2]charset{}, 0
	s.saved = savedCursor{}
	s.clearRows(0, s.rows)
	s.x, s.y, s.pendingWrap = 0, 0, false
	s.mouse = 0
	s.setSignalModes()
	s.whole++
}

// alignmentTest is DECALN: fill the screen with E, reset margins, home.
func (s *Screen) alignmentTest() {
	s.top, s.bottom = 0, s.rows-1
	s.origin = false
	for y := range s.buf.lines {
		ln := s.buf.lines[y].cells
		for x := range ln {
			ln[x] = cell{r: 'E', w: 1}
		}
		s.buf.lines[y].wrapped = false
	}
	s.x, s.y, s.pendingWrap = 0, 0, false
}

// saveCursor is DECSC: position, rendition, origin mode and charsets.
func (s *Screen) saveCursor() {
	s.saved = savedCursor{
		set: true, x: s.x, y: s.y,
		pen: s.pen, origin: s.origin, g: s.g, gl: s.gl,
	}
}

// restoreCursor is DECRC. Without a prior save it homes the cursor and
// resets the rendition, as xterm does.
func (s *Screen) restoreCursor() {
	sv := s.saved
	if !sv.set {
		s.x, s.y, s.pendingWrap = 0, 0, false
		s.pen = attr{}
		s.origin = false
		s.g, s.gl = [2]charset{}, 0
		return
	}
	// The position comes back without its pending wrap: tmux moves the
	// cursor there, which clamps it to the last column.
	s.x = min(sv.x, s.cols-1)
	s.y = min(sv.y, s.rows-1)
	s.pendingWrap = false
	s.pen, s.origin, s.g, s.gl = sv.pen, sv.origin, sv.g, sv.gl
}
