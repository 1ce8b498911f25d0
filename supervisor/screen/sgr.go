package screen

import "github.com/charmbracelet/x/ansi"

// sgr applies Select Graphic Rendition parameters to the pen. Both the
// semicolon (38;2;r;g;b) and colon (38:2::r:g:b) forms of extended colours
// are read; unknown parameters are skipped.
func (s *Screen) sgr(ps ansi.Params) {
	if len(ps) == 0 {
		s.pen = attr{}
		return
	}
	for i := 0; i < len(ps); i++ {
		v := param(ps, i, 0)
		// Colon sub-parameters belong to this parameter: find their end.
		j := i
		for j < len(ps)-1 && ps[j].HasMore() {
			j++
		}
		sub := ps[i+1 : j+1]
		switch {
		case v == 0:
			s.pen = attr{}
		case v == 1:
			s.pen.flags |= attrBold
		case v == 2:
			s.pen.flags |= attrDim
		case v == 3:
			s.pen.flags |= attrItalic
		case v == 4:
			// 4:0 is "no underline"; 4:1..4:5 are styles of underline.
			if len(sub) > 0 && param(sub, 0, 1) == 0 {
				s.pen.flags &^= attrUnderline
			} else {
				s.pen.flags |= attrUnderline
			}
		case v == 5 || v == 6:
			s.pen.flags |= attrBlink
		case v == 7:
			s.pen.flags |= attrReverse
		case v == 8:
			s.pen.flags |= attrHidden
		case v == 9:
			s.pen.flags |= attrStrike
		case v == 21:
			s.pen.flags |= attrUnderline // double underline
		case v == 22:
			s.pen.flags &^= attrBold | attrDim
		case v == 23:
			s.pen.flags &^= attrItalic
		case v == 24:
			s.pen.flags &^= attrUnderline
		case v == 25:
			s.pen.flags &^= attrBlink
		case v == 27:
			s.pen.flags &^= attrReverse
		case v == 28:
			s.pen.flags &^= attrHidden
		case v == 29:
			s.pen.flags &^= attrStrike
		case v >= 30 && v <= 37:
			s.pen.fg = indexedColor(v - 30)
		case v == 39:
			s.pen.fg = colorDefault
		case v >= 40 && v <= 47:
			s.pen.bg = indexedColor(v - 40)
		case v == 49:
			s.pen.bg = colorDefault
		case v >= 90 && v <= 97:
			s.pen.fg = indexedColor(v - 90 + 8)
		case v >= 100 && v <= 107:
			s.pen.bg = indexedColor(v - 100 + 8)
		case v == 38 || v == 48 || v == 58:
			var c color
			var ok bool
			if len(sub) > 0 {
				c, ok = extColor(sub)
			} else {
				var n int
				c, ok, n = extColorSemi(ps[i+1:])
				j = i + n
			}
			if ok && v == 38 {
				s.pen.fg = c
			} else if ok && v == 48 {
				s.pen.bg = c
			} // 58 (underline colour) is read to be skipped.
		}
		i = j
	}
}

// extColor reads an extended colour from colon sub-parameters:
// 5:n, 2:r:g:b or 2:cs:r:g:b (ITU T.416 puts a colour-space id first).
func extColor(sub ansi.Params) (color, bool) {
	switch param(sub, 0, -1) {
	case 5:
		if len(sub) >= 2 {
			return indexedColor(param(sub, 1, 0)), true
		}
	case 2:
		rest := sub[1:]
		if len(rest) >= 4 {
			rest = rest[1:]
		}
		if len(rest) >= 3 {
			return rgbColor(param(rest, 0, 0), param(rest, 1, 0), param(rest, 2, 0)), true
		}
	}
	return 0, false
}

// extColorSemi reads an extended colour from the semicolon form following
// a 38/48/58 and returns how many parameters it used.
func extColorSemi(rest ansi.Params) (color, bool, int) {
	switch param(rest, 0, -1) {
	case 5:
		if len(rest) >= 2 {
			return indexedColor(param(rest, 1, 0)), true, 2
		}
		return 0, false, len(rest)
	case 2:
		if len(rest) >= 4 {
			return rgbColor(param(rest, 1, 0), param(rest, 2, 0), param(rest, 3, 0)), true, 4
		}
		return 0, false, len(rest)
	}
	return 0, false, min(1, len(rest))
}
