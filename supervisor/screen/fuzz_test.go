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

// tracked is the state a gap must not lose (specs/screen.md, "Resync
// after a gap").
type tracked struct {
	alt, cursorKeys, origin, autowrap, cursor, focus, paste, sync, insert bool
	savedSet, savedOrigin                                                 bool
	mouse                                                                 mouseModes
	title, agentState                                                     string
}

func trackedOf(s *Screen) tracked {
	return tracked{alt: s.altActive, cursorKeys: s.cursorKeys, origin: s.origin, autowrap: s.autowrap,
		cursor: s.cursorVisible, focus: s.sig.FocusReporting, paste: s.sig.BracketedPaste, sync: s.synchronized,
		insert: s.insert, savedSet: s.saved.set, savedOrigin: s.saved.origin,
		mouse: s.mouse, title: s.sig.Title, agentState: s.sig.AgentState}
}

// FuzzResync cuts a stream into what the screen applied, what a gap lost
// and what came after, with the mode scanner fed the stream in two writes
// split anywhere: after the resync and the rest, the modes, title and
// agent state must be those of a screen that read every byte (the gap's
// invariant; a title whose OSC the gap's end cut is the one exception),
// and the offset must count every byte.
func FuzzResync(f *testing.F) {
	f.Add([]byte("text\x1b[?1049h\x1b[?2004;1h\x1b]0;a title\x07more\x1b[?1l"), uint16(3), uint16(40), uint16(20))
	f.Add([]byte("\x1b[?1;2004h\x1bc\x1b[?1049hx\x1b]7501;state=working\x1b\\\x1b[?1000;1006hy"), uint16(2), uint16(9), uint16(30))
	f.Add([]byte("\x1bPtmux;\x1b\x1b[?1049h\x1b\\\x1b[4h\x1b[?25l\x1b[?2026h"), uint16(0), uint16(12), uint16(5))
	f.Add([]byte("\x1b]2;cut\x1b[?2004h\x1b[?;1049\x18h\x1b[?7;6l"), uint16(1), uint16(6), uint16(3))
	// CI's find: origin mode comes back with DECRC (ESC 8, CSI u), which
	// the scanner once ignored; DECALN and RIS clear it and the save.
	f.Add([]byte("x\x1b[?6h\x1b8y"), uint16(1), uint16(7), uint16(3))
	f.Add([]byte("\x1b[?6h\x1b7\x1b[?6l\x1b[s\x1b8\x1b#8\x1b[?6h\x1b[u\x1bc\x1b8"), uint16(5), uint16(9), uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, applied, lost, split uint16) {
		i := int(applied) % (len(data) + 1)
		j := i + int(lost)%(len(data)-i+1)
		k := int(split) % (j + 1)
		ms := newModeScan()
		ms.feed(data[:k])
		ms.feed(data[k:j])
		mark := ms.scanMark
		s := New(20, 4)
		s.Write(data[:i])
		s.resync(&mark, int64(j-i))
		s.Write(data[j:])
		ref := New(20, 4)
		ref.Write(data)
		got, want := trackedOf(s), trackedOf(ref)
		if (mark.st == scanStr || mark.st == scanStrEsc) && mark.str == strOSC {
			// A gap that ends inside an OSC lost its head: the title or
			// state it sets is lost (specs/screen.md); modes are not.
			got.title, got.agentState, want.title, want.agentState = "", "", "", ""
		}
		if got != want {
			t.Fatalf("applied %d, lost %d (scanner split at %d):\n got %+v\nwant %+v", i, j-i, k, got, want)
		}
		if s.offset != int64(len(data)) {
			t.Fatalf("offset %d, want %d", s.offset, len(data))
		}
		if err := s.check(); err != nil {
			t.Fatal(err)
		}
	})
}

// A CSI cut by a gap's end continues with the same parameters: the
// cursor lands where a screen that read every byte puts it.
func TestResyncRestartsTheCutSequence(t *testing.T) {
	data := []byte("\x1b[2;5Hx")
	for cut := 0; cut <= len(data); cut++ {
		ms := newModeScan()
		ms.feed(data[:cut])
		s := New(10, 4)
		s.resync(&ms.scanMark, int64(cut))
		s.Write(data[cut:])
		if x, y, _ := s.Cursor(); cut < 6 && (x != 5 || y != 1) {
			t.Errorf("cut at %d: cursor %d,%d, want 5,1", cut, x, y)
		}
	}
}
