package screen

import (
	"strconv"
	"strings"
)

// Lines returns the visible screen, one string per row (always Size()
// rows), each with trailing spaces trimmed. A wide rune appears once
// (its second cell adds nothing); combining marks follow their base rune.
// Only U+0020 is trimmed: a no-break space (U+00A0, which Claude Code puts
// after its ❯ prompt) stays.
func (s *Screen) Lines() []string {
	out := make([]string, s.rows)
	var b strings.Builder
	for y := range s.buf.lines {
		b.Reset()
		s.writeRow(&b, s.buf.lines[y].cells)
		out[y] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// Text returns the visible screen as one string: Lines joined with "\n",
// without the blank rows at the bottom and without a final newline. This
// is what `tmux capture-pane -p` prints, minus its trailing empty lines.
func (s *Screen) Text() string {
	ls := s.Lines()
	n := len(ls)
	for n > 0 && ls[n-1] == "" {
		n--
	}
	return strings.Join(ls[:n], "\n")
}

func (s *Screen) writeRow(b *strings.Builder, cells []cell) {
	for _, c := range cells {
		if c.w == 0 {
			continue
		}
		b.WriteRune(c.r)
		if c.comb != 0 {
			b.WriteString(s.combText(c.comb))
		}
	}
}

// ANSI returns the visible screen with its SGR renditions, rows separated
// by "\r\n", so it can be replayed: written to a cleared terminal of the
// same size with the cursor at the top left it draws the same picture.
// Each row ends with the rendition reset; trailing default blanks and the
// blank rows at the bottom are left out. Cursor position and modes are not
// included (see Cursor).
func (s *Screen) ANSI() string {
	var b strings.Builder
	rows := len(s.buf.lines)
	for rows > 0 && blankRow(s.buf.lines[rows-1].cells) {
		rows--
	}
	for y := range rows {
		if y > 0 {
			b.WriteString("\r\n")
		}
		cells := s.buf.lines[y].cells
		end := len(cells)
		for end > 0 && cells[end-1].r == ' ' && cells[end-1].comb == 0 && cells[end-1].a == (attr{}) {
			end--
		}
		var cur attr
		for _, c := range cells[:end] {
			if c.w == 0 {
				continue
			}
			if c.a != cur {
				writeSGR(&b, c.a)
				cur = c.a
			}
			b.WriteRune(c.r)
			if c.comb != 0 {
				b.WriteString(s.combText(c.comb))
			}
		}
		if cur != (attr{}) {
			b.WriteString("\x1b[0m")
		}
	}
	return b.String()
}

func blankRow(cells []cell) bool {
	for _, c := range cells {
		if c.r != ' ' || c.comb != 0 || c.a != (attr{}) {
			return false
		}
	}
	return true
}

// writeSGR writes one SGR sequence that sets exactly a (from a reset).
func writeSGR(b *strings.Builder, a attr) {
	b.WriteString("\x1b[0")
	flags := [...]struct {
		f    attrFlags
		code string
	}{
		{attrBold, "1"}, {attrDim, "2"}, {attrItalic, "3"}, {attrUnderline, "4"},
		{attrBlink, "5"}, {attrReverse, "7"}, {attrHidden, "8"}, {attrStrike, "9"},
	}
	for _, f := range flags {
		if a.flags&f.f != 0 {
			b.WriteByte(';')
			b.WriteString(f.code)
		}
	}
	writeColor(b, a.fg, 30, 90, "38")
	writeColor(b, a.bg, 40, 100, "48")
	b.WriteByte('m')
}

func writeColor(b *strings.Builder, c color, base, bright int, ext string) {
	switch c & colorKind {
	case colorIndexed:
		n := int(c & 0xff)
		b.WriteByte(';')
		switch {
		case n < 8:
			b.WriteString(strconv.Itoa(base + n))
		case n < 16:
			b.WriteString(strconv.Itoa(bright + n - 8))
		default:
			b.WriteString(ext + ";5;" + strconv.Itoa(n))
		}
	case colorRGB:
		b.WriteString(";" + ext + ";2;" +
			strconv.Itoa(int(c>>16&0xff)) + ";" + strconv.Itoa(int(c>>8&0xff)) + ";" + strconv.Itoa(int(c&0xff)))
	}
}
