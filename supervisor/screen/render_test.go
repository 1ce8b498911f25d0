package screen

import (
	"os"
	"strings"
	"testing"
)

func TestANSI(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain", "ab\r\ncd", "ab\r\ncd"},
		{"bold red", "\x1b[1;31mX\x1b[mY", "\x1b[0;1;31mX\x1b[0mY"},
		{"bright and 256 and truecolor", "\x1b[91ma\x1b[38;5;200mb\x1b[48;2;1;2;3mc", "\x1b[0;91ma\x1b[0;38;5;200mb\x1b[0;38;5;200;48;2;1;2;3mc\x1b[0m"},
		{"colon forms", "\x1b[38:2::10:20:30ma\x1b[38:5:9mb\x1b[4:3mc\x1b[4:0md", "\x1b[0;38;2;10;20;30ma\x1b[0;91mb\x1b[0;4;91mc\x1b[0;91md\x1b[0m"},
		{"all flags then resets", "\x1b[1;2;3;4;5;7;8;9mX\x1b[22;23;24;25;27;28;29mY", "\x1b[0;1;2;3;4;5;7;8;9mX\x1b[0mY"},
		{"background erase is kept", "\x1b[44m\x1b[K", "\x1b[0;44m          \x1b[0m"},
		{"trailing blank rows left out", "a\r\n\r\n", "a"},
		{"default fg/bg resets", "\x1b[31;42ma\x1b[39mb\x1b[49mc", "\x1b[0;31;42ma\x1b[0;42mb\x1b[0mc"},
		{"wide rune once", "你x", "你x"},
	}
	for _, c := range cases {
		s := sc(10, 3, c.in)
		if got := s.ANSI(); got != c.want {
			t.Fatalf("%s: ANSI %q, want %q", c.name, got, c.want)
		}
	}
}

// TestANSIReplay: ANSI() written into a fresh screen draws the same
// picture, for every replay fixture and corpus recording at hand.
func TestANSIReplay(t *testing.T) {
	inputs := map[string][]byte{
		"colours": []byte("\x1b[1;31mred\x1b[0m \x1b[48;5;22m bg \x1b[0m\r\n\x1b[7mrev\x1b[27m 你好 e\u0301\r\n\x1b[44m\x1b[2K"),
	}
	for _, name := range []string{"torture", "agentlike", "vim", "less", "top"} {
		data, err := os.ReadFile("testdata/replay/" + name + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = data
	}
	for name, data := range inputs {
		s := New(100, 30)
		s.Write(data)
		r := New(100, 30)
		r.Write([]byte(s.ANSI()))
		if r.Text() != s.Text() {
			t.Fatalf("%s: replayed text differs\n%s", name, diffText(s.Text(), r.Text()))
		}
		if r.ANSI() != s.ANSI() {
			t.Fatalf("%s: replayed renditions differ", name)
		}
	}
}

func TestResize(t *testing.T) {
	t.Run("shrink rows keeps the cursor row", func(t *testing.T) {
		s := sc(10, 5, "1\r\n2\r\n3\r\n4\r\n5")
		s.Resize(10, 3)
		if got := s.Text(); got != "3\n4\n5" {
			t.Fatalf("text %q", got)
		}
		if x, y, _ := s.Cursor(); x != 1 || y != 2 {
			t.Fatalf("cursor %d,%d", x, y)
		}
	})
	t.Run("shrink rows with the cursor high keeps the top", func(t *testing.T) {
		s := sc(10, 5, "1\r\n2\r\n3\r\n4\r\n5\x1b[1;1H")
		s.Resize(10, 3)
		if got := s.Text(); got != "1\n2\n3" {
			t.Fatalf("text %q", got)
		}
	})
	t.Run("grow pads", func(t *testing.T) {
		s := sc(4, 2, "abcd\r\nefgh")
		s.Resize(6, 4)
		if got := s.Text(); got != "abcd\nefgh" {
			t.Fatalf("text %q", got)
		}
		s.Write([]byte("\x1b[4;6HZ"))
		if got := s.Lines()[3]; got != "     Z" {
			t.Fatalf("row 3 %q", got)
		}
	})
	t.Run("narrowing cuts a wide rune in half to a blank", func(t *testing.T) {
		s := sc(6, 2, "ab你x")
		s.Resize(3, 2)
		if got := s.Text(); got != "ab" {
			t.Fatalf("text %q", got)
		}
		if x, _, _ := s.Cursor(); x != 2 {
			t.Fatalf("cursor x %d", x)
		}
	})
	t.Run("alternate and main both resize", func(t *testing.T) {
		s := sc(10, 4, "main\x1b[?1049halt")
		s.Resize(5, 2)
		s.Write([]byte("\x1b[?1049l"))
		if got := s.Text(); got != "main" {
			t.Fatalf("main after resize %q", got)
		}
		if c, r := s.Size(); c != 5 || r != 2 {
			t.Fatalf("size %dx%d", c, r)
		}
	})
	t.Run("scroll region and tab stops reset", func(t *testing.T) {
		s := sc(10, 6, "\x1b[2;3r")
		s.Resize(20, 6)
		s.Write([]byte("\x1b[6;1H\nX\rA\t\tB"))
		if got := s.Lines()[5]; got != "A               B" {
			t.Fatalf("row %q", got)
		}
	})
	t.Run("silly sizes clamp", func(t *testing.T) {
		s := New(0, -5)
		if c, r := s.Size(); c != 1 || r != 1 {
			t.Fatalf("size %dx%d", c, r)
		}
		s.Write([]byte("你好abc\x1b[5;5H\x1b[L\x1b[P"))
		s.Resize(1<<30, 3)
		if c, _ := s.Size(); c != maxDim {
			t.Fatalf("cols %d", c)
		}
	})
}

func TestTextTrimming(t *testing.T) {
	s := sc(10, 4, "a  \r\n\r\n b")
	if got := s.Lines(); strings.Join(got, "|") != "a|| b|" {
		t.Fatalf("Lines %q", got)
	}
	if got := s.Text(); got != "a\n\n b" {
		t.Fatalf("Text %q", got)
	}
}
