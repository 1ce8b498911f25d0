package screen

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// decGraphics maps 0x5f-0x7e to DEC special graphics (ESC ( 0), the
// line-drawing set ncurses uses for boxes under TERM=screen and tmux.
var decGraphics = [...]rune{
	' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼',
	'⎺', '⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
}

// maxWidthCache bounds the per-screen rune width cache; a stream of
// distinct runes (fuzzing, binary garbage) must not grow it forever.
const maxWidthCache = 4096

// runeWidth returns how many columns r advances the cursor, the way a
// wcwidth terminal (tmux) counts it: per code point, no grapheme
// clustering. Zero-width runes (combining marks, ZWJ, variation selectors)
// attach to the previous cell.
func (s *Screen) runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1 // Latin-1 and Latin Extended; even the soft hyphen takes a cell in tmux
	case r >= 0x2500 && r <= 0x259f, r >= 0x2800 && r <= 0x28ff:
		// Box drawing, blocks and braille: every TUI frame is full of them.
		return 1
	}
	if w, ok := s.widths[r]; ok {
		return int(w)
	}
	var buf [4]byte
	n := utf8.EncodeRune(buf[:], r)
	w := ansi.StringWidthWc(string(buf[:n]))
	w = min(w, 2)
	if s.widths == nil {
		s.widths = make(map[rune]int8)
	}
	if len(s.widths) < maxWidthCache {
		s.widths[r] = int8(w)
	}
	return w
}

// printASCII prints a run of printable ASCII bytes, the bulk of any TUI's
// output, without going through the parser: whole stretches of a row are
// written at once, with put's rules (deferred wrap, wide-rune repair).
func (s *Screen) printASCII(p []byte) {
	if s.g[s.gl] == charsetDEC || s.insert {
		for _, b := range p {
			r := rune(b)
			if s.g[s.gl] == charsetDEC && b >= 0x5f {
				r = decGraphics[b-0x5f]
			}
			s.lastRune, s.haveLast = r, true
			s.put(r, 1)
		}
		return
	}
	s.lastRune, s.haveLast = rune(p[len(p)-1]), true
	for len(p) > 0 {
		if s.pendingWrap {
			s.pendingWrap = false
			if s.autowrap {
				s.wrapLine()
			}
		}
		if !s.autowrap && len(p) > s.cols-s.x {
			// Without autowrap everything past the edge lands on the last
			// column in turn: only the last of those survives.
			p = append(p[:s.cols-s.x-1:s.cols-s.x-1], p[len(p)-1])
		}
		ln := s.buf.lines[s.y].cells
		n := min(len(p), s.cols-s.x)
		s.fixWide(ln, s.x, s.x+n)
		cs := ln[s.x : s.x+n]
		for i := range cs {
			cs[i] = cell{r: rune(p[i]), w: 1, a: s.pen}
		}
		s.x += n
		p = p[n:]
		if s.x >= s.cols {
			s.x = s.cols - 1
			s.pendingWrap = s.autowrap
		}
	}
}

// print handles one printable rune (from the parser or the UTF-8 decoder).
// C1 controls encoded in UTF-8 (U+0080-U+009F) and noncharacters have no
// width at all: tmux drops them, so do we.
func (s *Screen) print(r rune) {
	if r >= 0x80 && r < 0xa0 || r >= 0xfdd0 && r <= 0xfdef || r&0xfffe == 0xfffe {
		return
	}
	if r >= 0x5f && r <= 0x7e && s.g[s.gl] == charsetDEC {
		r = decGraphics[r-0x5f]
	}
	w := s.runeWidth(r)
	if w == 0 {
		s.combine(r)
		return
	}
	// tmux repeats (REP) only an ASCII character printed last.
	s.haveLast = false
	s.put(r, w)
}

// combine attaches a zero-width rune to the cell last written: the cell
// under the cursor when a wrap is pending, else the one before it (the
// head, if that is a wide tail).
func (s *Screen) combine(r rune) {
	x := s.x
	if !s.pendingWrap {
		x--
	}
	if x < 0 {
		return
	}
	ln := s.buf.lines[s.y].cells
	if ln[x].w == 0 && x > 0 {
		x--
	}
	c := &ln[x]
	if c.r == 0 {
		return
	}
	old := s.combText(c.comb)
	if len(old) >= maxComb {
		return
	}
	var buf [4]byte
	n := utf8.EncodeRune(buf[:], r)
	c.comb = s.combIndex(old + string(buf[:n]))
}

// combText returns the zero-width runes of comb index i.
func (s *Screen) combText(i uint16) string {
	if i == 0 || int(i) >= len(s.combs) {
		return ""
	}
	return s.combs[i]
}

// combIndex returns the comb-table index of t, adding it if new. Index 0
// means "none", so the table starts with a placeholder. When the table is
// full it is rebuilt from the indices cells still use; if every entry is
// live, t is not stored (its marks are lost, never memory).
func (s *Screen) combIndex(t string) uint16 {
	if i, ok := s.combIdx[t]; ok {
		return i
	}
	if len(s.combs) == 0 {
		s.combs = []string{""}
		s.combIdx = map[string]uint16{}
	}
	if len(s.combs) >= maxCombs {
		s.compactCombs()
		if len(s.combs) >= maxCombs {
			return 0
		}
	}
	i := uint16(len(s.combs))
	s.combs = append(s.combs, t)
	s.combIdx[t] = i
	return i
}

// compactCombs drops comb-table entries no cell refers to and renumbers
// the rest.
func (s *Screen) compactCombs() {
	remap := make([]uint16, len(s.combs))
	combs := []string{""}
	idx := map[string]uint16{}
	for _, b := range []*buffer{&s.main, &s.alt} {
		for y := range b.lines {
			cs := b.lines[y].cells
			for x := range cs {
				i := cs[x].comb
				if i == 0 {
					continue
				}
				if remap[i] == 0 {
					remap[i] = uint16(len(combs))
					combs = append(combs, s.combs[i])
					idx[s.combs[i]] = remap[i]
				}
				cs[x].comb = remap[i]
			}
		}
	}
	s.combs, s.combIdx = combs, idx
}

// put writes a rune of width w (1 or 2) at the cursor with xterm's
// deferred wrap: writing the last column leaves the cursor there with a
// wrap pending, and only the next printable moves to the next line.
func (s *Screen) put(r rune, w int) {
	if w > s.cols {
		return
	}
	if s.pendingWrap {
		s.pendingWrap = false
		if s.autowrap {
			s.wrapLine()
		}
	}
	if s.x+w > s.cols {
		// A wide rune on the last column: tmux wraps first and leaves that
		// column as it was, or drops the rune when autowrap is off.
		if !s.autowrap {
			return
		}
		s.wrapLine()
	}
	ln := s.buf.lines[s.y].cells
	if s.insert {
		s.insertCells(w)
	}
	s.fixWide(ln, s.x, s.x+w)
	ln[s.x] = cell{r: r, w: uint8(w), a: s.pen}
	if w == 2 {
		ln[s.x+1] = cell{w: 0, a: s.pen}
	}
	s.x += w
	if s.x >= s.cols {
		s.x = s.cols - 1
		s.pendingWrap = s.autowrap
	}
}

// wrapLine continues output on the next line, marking this one wrapped.
func (s *Screen) wrapLine() {
	s.buf.lines[s.y].wrapped = true
	s.x = 0
	s.index()
}

// fixWide is called before cells [x0, x1) of ln are overwritten: a wide
// rune with one half inside the range loses its other half too, so no
// orphan head or tail is left behind.
func (s *Screen) fixWide(ln []cell, x0, x1 int) {
	if x0 > 0 && x0 < len(ln) && ln[x0].w == 0 {
		ln[x0-1] = blankCell(ln[x0-1].a.bg)
	}
	if x1 > 0 && x1 < len(ln) && ln[x1].w == 0 {
		ln[x1] = blankCell(ln[x1].a.bg)
	}
}
