package screen

import (
	"fmt"
	"testing"
)

// FuzzWrite feeds arbitrary bytes, split at an arbitrary point, into a
// screen of arbitrary size, then resizes it: nothing may panic, the grid
// must stay well formed, and splitting a write must not change the result.
// Seeds are in testdata/fuzz/FuzzWrite (recordings of real programs and
// agents, and hand-made nasty sequences).
func FuzzWrite(f *testing.F) {
	f.Add([]byte("\x1b[31mhello\x1b[0m 你好\r\n\x1b[?1049h\x1b]0;t\x07"), uint8(80), uint8(24), uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, cols, rows uint8, split uint16) {
		c, r := int(cols%200)+1, int(rows%60)+1
		k := int(split) % (len(data) + 1)
		s := New(c, r)
		s.Write(data[:k])
		s.Write(data[k:])
		if err := s.check(); err != nil {
			t.Fatalf("after write: %v", err)
		}
		whole := New(c, r)
		whole.Write(data)
		if whole.ANSI() != s.ANSI() {
			t.Fatalf("split at %d changes the screen:\n%q\n%q", k, whole.ANSI(), s.ANSI())
		}
		_ = s.Text()
		_ = s.Signals()
		// The rendition dump replays to the same text.
		re := New(c, r)
		re.Write([]byte(s.ANSI()))
		if re.Text() != s.Text() {
			t.Fatalf("ANSI replay differs:\n%q\n%q", s.Text(), re.Text())
		}
		s.Resize(int(split%97)+1, int(split%31)+1)
		if err := s.check(); err != nil {
			t.Fatalf("after resize: %v", err)
		}
		s.Write(data)
		if err := s.check(); err != nil {
			t.Fatalf("after resize and write: %v", err)
		}
	})
}

// check verifies the grid's invariants.
func (s *Screen) check() error {
	if s.buf != &s.main && s.buf != &s.alt || (s.buf == &s.alt) != s.altActive {
		return fmt.Errorf("active buffer inconsistent")
	}
	if s.x < 0 || s.x >= s.cols || s.y < 0 || s.y >= s.rows {
		return fmt.Errorf("cursor %d,%d outside %dx%d", s.x, s.y, s.cols, s.rows)
	}
	if s.top < 0 || s.bottom >= s.rows || s.top >= s.bottom && s.rows > 1 {
		return fmt.Errorf("scroll region %d-%d in %d rows", s.top, s.bottom, s.rows)
	}
	if s.pendingWrap && s.x != s.cols-1 {
		return fmt.Errorf("pending wrap at column %d", s.x)
	}
	if len(s.tabs) != s.cols {
		return fmt.Errorf("%d tab stops for %d columns", len(s.tabs), s.cols)
	}
	if s.altActive && s.alt.lines == nil {
		return fmt.Errorf("alternate screen active but not allocated")
	}
	for _, b := range []*buffer{&s.main, &s.alt} {
		if b.lines == nil && b == &s.alt {
			continue
		}
		if len(b.lines) != s.rows {
			return fmt.Errorf("%d lines for %d rows", len(b.lines), s.rows)
		}
		for y, ln := range b.lines {
			if len(ln.cells) != s.cols {
				return fmt.Errorf("row %d has %d cells for %d columns", y, len(ln.cells), s.cols)
			}
			for x, c := range ln.cells {
				switch c.w {
				case 0:
					if x == 0 || ln.cells[x-1].w != 2 {
						return fmt.Errorf("row %d col %d: wide tail without head", y, x)
					}
				case 2:
					if x == s.cols-1 || ln.cells[x+1].w != 0 {
						return fmt.Errorf("row %d col %d: wide head without tail", y, x)
					}
				case 1:
				default:
					return fmt.Errorf("row %d col %d: width %d", y, x, c.w)
				}
				if c.w != 0 && c.r == 0 {
					return fmt.Errorf("row %d col %d: empty cell", y, x)
				}
				if int(c.comb) >= max(len(s.combs), 1) || len(s.combText(c.comb)) > maxComb+4 {
					return fmt.Errorf("row %d col %d: comb index %d of %d", y, x, c.comb, len(s.combs))
				}
			}
		}
	}
	return nil
}
