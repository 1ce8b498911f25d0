package screen

import "github.com/charmbracelet/x/ansi"

// maxParam caps numeric parameters: the parser lets a long digit string
// overflow, and counts such as REP or SU must stay bounded.
const maxParam = 65535

// param returns parameter i clamped to 0..maxParam, or def if missing.
func param(ps ansi.Params, i, def int) int {
	v, _, ok := ps.Param(i, def)
	if !ok {
		return def
	}
	return max(0, min(v, maxParam))
}

// count returns parameter i as a repeat count: missing or 0 mean 1.
func count(ps ansi.Params, i int) int {
	return max(1, param(ps, i, 1))
}

// csi dispatches a control sequence. Where xterm and tmux differ, tmux
// (3.3a, checked by TestCasesMatchTmux) wins: the pane the user sees is
// tmux's rendering of these bytes, so what tmux ignores is ignored here
// too — VPR (CSI e), HPR (CSI a), CHT (CSI I), DECSTR,
// DECSED/DECSEL (CSI ? J/K). Queries (DA, DSR, DECRQM, XTVERSION, kitty
// keyboard, window reports) and the sequences with nothing to show (cursor
// style, modifyOtherKeys, kitty keyboard push/pop) fall through unanswered.
func (s *Screen) csi(cmd ansi.Cmd, ps ansi.Params) {
	prefix, inter, final := cmd.Prefix(), cmd.Intermediate(), cmd.Final()
	// tmux forgets the last printed character for REP after any sequence.
	rep := final == 'b' && prefix == 0 && inter == 0
	if !rep {
		s.haveLast = false
	}
	switch {
	case prefix == 0 && inter == 0:
		s.csiPlain(final, ps)
	case prefix == '?' && inter == 0:
		switch final {
		case 'h':
			s.setPrivateModes(ps, true)
		case 'l':
			s.setPrivateModes(ps, false)
		}
	}
}

func (s *Screen) csiPlain(final byte, ps ansi.Params) {
	switch final {
	case '@': // ICH
		s.insertChars(count(ps, 0))
	case 'A': // CUU
		s.cursorUp(count(ps, 0))
	case 'B': // CUD
		s.cursorDown(count(ps, 0))
	case 'C': // CUF
		s.cursorRight(count(ps, 0))
	case 'D': // CUB
		s.cursorLeft(count(ps, 0))
	case 'E': // CNL
		s.x, s.pendingWrap = 0, false
		s.cursorDown(count(ps, 0))
	case 'F': // CPL
		s.x, s.pendingWrap = 0, false
		s.cursorUp(count(ps, 0))
	case 'G', '`': // CHA, HPA
		s.moveTo(count(ps, 0)-1, -1)
	case 'H', 'f': // CUP, HVP
		s.moveTo(count(ps, 1)-1, count(ps, 0)-1)
	case 'J': // ED
		s.eraseDisplay(param(ps, 0, 0))
	case 'K': // EL
		s.eraseLine(param(ps, 0, 0))
	case 'L': // IL
		s.insertLines(count(ps, 0))
	case 'M': // DL
		s.deleteLines(count(ps, 0))
	case 'P': // DCH
		s.deleteChars(count(ps, 0))
	case 'S': // SU
		s.scrollUp(s.top, s.bottom, count(ps, 0))
	case 'T': // SD (tmux reads only the first parameter)
		s.scrollDown(s.top, s.bottom, count(ps, 0))
	case 'X': // ECH
		s.eraseChars(count(ps, 0))
	case 'Z': // CBT
		s.backTab(count(ps, 0))
	case 'b': // REP
		s.repeat(count(ps, 0))
	case 'd': // VPA
		s.moveTo(-1, count(ps, 0)-1)
	case 'g': // TBC
		switch param(ps, 0, 0) {
		case 0:
			if !s.pendingWrap {
				s.tabs[s.x] = false
			}
		case 3:
			clear(s.tabs)
		}
	case 'h': // SM
		s.setANSIModes(ps, true)
	case 'l': // RM
		s.setANSIModes(ps, false)
	case 'm': // SGR
		s.sgr(ps)
	case 'r': // DECSTBM
		s.setScrollRegion(count(ps, 0)-1, param(ps, 1, s.rows)-1)
	case 's': // SCOSC (with parameters it would be DECSLRM, unsupported)
		if len(ps) == 0 {
			s.saveCursor()
		}
	case 'u': // SCORC
		if len(ps) == 0 {
			s.restoreCursor()
		}
	}
	// c (DA), n (DSR), t (window ops), q (DECLL) and the rest: ignored.
}

// cx is the cursor column as tmux keeps it: one past the last column while
// a wrap is pending. Several operations behave differently there.
func (s *Screen) cx() int {
	if s.pendingWrap {
		return s.cols
	}
	return s.x
}

// moveTo is CUP and friends: x, y are 0-based, -1 leaves that coordinate
// alone, y is relative to the scroll region in origin mode. Setting the
// column cancels a pending wrap; a row-only move (VPA) keeps it, as tmux
// does.
func (s *Screen) moveTo(x, y int) {
	if x >= 0 {
		s.x = min(x, s.cols-1)
		s.pendingWrap = false
	}
	if y >= 0 {
		if s.origin {
			if y > s.bottom-s.top {
				y = s.bottom
			} else {
				y += s.top
			}
		}
		s.y = min(y, s.rows-1)
	}
}

// cursorUp stops at the top margin when starting inside the region.
func (s *Screen) cursorUp(n int) {
	s.pendingWrap = false
	limit := 0
	if s.y >= s.top {
		limit = s.top
	}
	s.y = max(s.y-n, limit)
}

// cursorDown stops at the bottom margin when starting inside the region.
func (s *Screen) cursorDown(n int) {
	s.pendingWrap = false
	limit := s.rows - 1
	if s.y <= s.bottom {
		limit = s.bottom
	}
	s.y = min(s.y+n, limit)
}

func (s *Screen) cursorRight(n int) {
	s.x = min(s.cx()+n, s.cols-1)
	s.pendingWrap = false
}

// cursorLeft counts from one past the last column when a wrap is pending
// (tmux): CUB 1 there lands on the last column.
func (s *Screen) cursorLeft(n int) {
	s.x = max(s.cx()-n, 0)
	s.pendingWrap = false
}

// repeat is REP: the last printed character again, at most to the end of
// the line. Like tmux, only a printable ASCII character printed right
// before (no sequence in between) is repeated.
func (s *Screen) repeat(n int) {
	if !s.haveLast {
		return
	}
	n = min(n, s.cols-s.cx())
	r := s.lastRune
	for range n {
		s.put(r, 1)
	}
}

// setScrollRegion is DECSTBM with 0-based rows. A region of less than two
// rows is refused. The cursor goes to the top left of the screen (tmux).
func (s *Screen) setScrollRegion(top, bottom int) {
	top = min(top, s.rows-1)
	bottom = min(bottom, s.rows-1)
	if top >= bottom {
		return
	}
	s.top, s.bottom = top, bottom
	s.x, s.y, s.pendingWrap = 0, 0, false
}
