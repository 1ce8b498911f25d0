package screen

// Editing operations. Erased and inserted cells take the current
// background colour (BCE, as xterm and tmux do). Operations at a pending
// wrap (cursor "past" the last column) follow tmux: ECH, ICH, DCH and EL 0
// do nothing there.

// clearCells blanks cells [x0, x1) of row y.
func (s *Screen) clearCells(y, x0, x1 int) {
	x0, x1 = max(0, x0), min(x1, s.cols)
	if x0 >= x1 {
		return
	}
	ln := s.buf.lines[y].cells
	s.fixWide(ln, x0, x1)
	fillCells(ln[x0:x1], blankCell(s.pen.bg))
}

// fillCells sets every cell of cs to c, doubling with copy (a memmove)
// rather than storing cell by cell: clears are a large part of a TUI's
// output.
func fillCells(cs []cell, c cell) {
	if len(cs) == 0 {
		return
	}
	cs[0] = c
	for i := 1; i < len(cs); i *= 2 {
		copy(cs[i:], cs[:i])
	}
}

// clearRows blanks whole rows [y0, y1).
func (s *Screen) clearRows(y0, y1 int) {
	for y := max(0, y0); y < min(y1, s.rows); y++ {
		s.clearCells(y, 0, s.cols)
		s.buf.lines[y].wrapped = false
	}
}

// eraseDisplay is ED. Mode 3 erases scrollback, which the model does not
// keep, so it leaves the screen alone (as xterm and tmux do).
func (s *Screen) eraseDisplay(mode int) {
	switch mode {
	case 0:
		if s.x == 0 && s.y == 0 && !s.pendingWrap {
			s.whole++ // the whole screen is about to be redrawn
		}
		s.clearCells(s.y, s.cx(), s.cols)
		s.clearRows(s.y+1, s.rows)
	case 1:
		s.clearRows(0, s.y)
		s.clearCells(s.y, 0, s.x+1)
	case 2:
		s.clearRows(0, s.rows)
		s.whole++
	}
}

// eraseLine is EL.
func (s *Screen) eraseLine(mode int) {
	switch mode {
	case 0:
		s.clearCells(s.y, s.cx(), s.cols)
	case 1:
		s.clearCells(s.y, 0, s.x+1)
	case 2:
		s.clearCells(s.y, 0, s.cols)
	}
	if mode == 2 || mode == 0 && s.cx() == 0 {
		s.buf.lines[s.y].wrapped = false
	}
}

// eraseChars is ECH: n cells from the cursor, which does not move.
func (s *Screen) eraseChars(n int) {
	if s.pendingWrap {
		return
	}
	s.clearCells(s.y, s.x, s.x+n)
}

// insertChars is ICH: n blanks at the cursor, the rest of the line shifts
// right and falls off the edge.
func (s *Screen) insertChars(n int) {
	if s.pendingWrap {
		return
	}
	s.insertCells(n)
}

// insertCells shifts row y right by n from the cursor (ICH and insert
// mode).
func (s *Screen) insertCells(n int) {
	ln := s.buf.lines[s.y].cells
	x := s.x
	n = min(n, s.cols-x)
	s.fixWide(ln, x, x) // a wide rune under the cursor is split apart
	copy(ln[x+n:], ln[x:s.cols-n])
	b := blankCell(s.pen.bg)
	for i := x; i < x+n; i++ {
		ln[i] = b
	}
	// A wide head pushed to the last column lost its tail.
	if last := &ln[s.cols-1]; last.w == 2 {
		*last = blankCell(last.a.bg)
	}
}

// deleteChars is DCH: n cells at the cursor go, the rest shifts left and
// blanks fill in at the right.
func (s *Screen) deleteChars(n int) {
	if s.pendingWrap {
		return
	}
	ln := s.buf.lines[s.y].cells
	x := s.x
	n = min(n, s.cols-x)
	s.fixWide(ln, x, x+n)
	copy(ln[x:], ln[x+n:])
	b := blankCell(s.pen.bg)
	for i := s.cols - n; i < s.cols; i++ {
		ln[i] = b
	}
}

// lineSpan returns the rows IL and DL work on: the scroll region from the
// cursor down, or (tmux) the rest of the screen when the cursor is outside
// the region.
func (s *Screen) lineSpan() (top, bottom int) {
	if s.y < s.top || s.y > s.bottom {
		return s.y, s.rows - 1
	}
	return s.y, s.bottom
}

// insertLines is IL. The cursor does not move (tmux).
func (s *Screen) insertLines(n int) {
	top, bottom := s.lineSpan()
	s.scrollDown(top, bottom, n)
}

// deleteLines is DL. The cursor does not move (tmux).
func (s *Screen) deleteLines(n int) {
	top, bottom := s.lineSpan()
	s.scrollUp(top, bottom, n)
}

// scrollUp moves rows [top, bottom] up by n; blank rows come in at the
// bottom. Rows are rotated, not copied, so scrolling costs no allocation.
func (s *Screen) scrollUp(top, bottom, n int) {
	if top >= bottom+1 || n <= 0 {
		return
	}
	n = min(n, bottom-top+1)
	if top == 0 && bottom == s.rows-1 {
		s.scrolled += uint64(n)
	}
	rotate(s.buf.lines[top:bottom+1], n)
	s.clearRows(bottom-n+1, bottom+1)
}

// scrollDown moves rows [top, bottom] down by n; blank rows come in at the
// top.
func (s *Screen) scrollDown(top, bottom, n int) {
	if top >= bottom+1 || n <= 0 {
		return
	}
	n = min(n, bottom-top+1)
	rotate(s.buf.lines[top:bottom+1], bottom-top+1-n)
	s.clearRows(top, top+n)
}

// rotate rotates ls left by k: scrolling by a row or two (every line feed
// at the bottom of a flood) moves the rows with one memmove; larger
// rotations use three reversals.
func rotate(ls []line, k int) {
	if k <= 0 || k >= len(ls) {
		return
	}
	var tmp [2]line
	switch r := len(ls) - k; {
	case k <= len(tmp):
		copy(tmp[:], ls[:k])
		copy(ls, ls[k:])
		copy(ls[r:], tmp[:k])
		return
	case r <= len(tmp):
		copy(tmp[:], ls[k:])
		copy(ls[r:], ls[:k])
		copy(ls, tmp[:r])
		return
	}
	reverse(ls[:k])
	reverse(ls[k:])
	reverse(ls)
}

func reverse(ls []line) {
	for i, j := 0, len(ls)-1; i < j; i, j = i+1, j-1 {
		ls[i], ls[j] = ls[j], ls[i]
	}
}
