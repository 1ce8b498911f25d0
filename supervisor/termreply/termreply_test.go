package termreply

import (
	"reflect"
	"strings"
	"testing"
)

// at is a cursor fixed at column 4, row 9 (0-based).
func at() (int, int) { return 4, 9 }

type reply struct{ Name, Bytes string }

func replies(rs []Reply) []reply {
	var out []reply
	for _, r := range rs {
		out = append(out, reply{r.Name, string(r.Bytes)})
	}
	return out
}

func write(chunks ...string) ([]reply, *Responder) {
	r := New(at)
	var out []reply
	for _, c := range chunks {
		out = append(out, replies(r.Feed([]byte(c)))...)
	}
	return out, r
}

var cases = []struct {
	name, out string
	want      []reply
}{
	{"DA1", "\x1b[c", []reply{{NameDA1, DA1Reply}}},
	{"DA1 with 0", "\x1b[0c", []reply{{NameDA1, DA1Reply}}},
	{"DSR status", "\x1b[5n", []reply{{NameDSR, "\x1b[0n"}}},
	{"cursor position", "\x1b[6n", []reply{{NameCPR, "\x1b[10;5R"}}},
	{"DECXCPR", "\x1b[?6n", []reply{{NameDECXCPR, "\x1b[?10;5;1R"}}},
	{"OSC 10 BEL", "\x1b]10;?\a", []reply{{NameOSC10, "\x1b]10;rgb:ffff/ffff/ffff\a"}}},
	{"OSC 10 ST", "\x1b]10;?\x1b\\", []reply{{NameOSC10, "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"}}},
	{"OSC 11 BEL", "\x1b]11;?\a", []reply{{NameOSC11, "\x1b]11;rgb:0000/0000/0000\a"}}},
	{"OSC 11 ST", "\x1b]11;?\x1b\\", []reply{{NameOSC11, "\x1b]11;rgb:0000/0000/0000\x1b\\"}}},
	{"among output", "hello \x1b[1mworld\x1b[0m\r\n\x1b[c\x1b]11;?\a$ ",
		[]reply{{NameDA1, DA1Reply}, {NameOSC11, "\x1b]11;rgb:0000/0000/0000\a"}}},
	{"Claude-like burst", "\x1b[?2004h\x1b[?1004h\x1b[?u\x1b[>q\x1b]11;?\x1b\\\x1b[c",
		[]reply{{NameOSC11, "\x1b]11;rgb:0000/0000/0000\x1b\\"}, {NameDA1, DA1Reply}}},
	// Not answered: what tmux answers but this package leaves alone, and
	// sequences that only look like queries.
	{"DA2", "\x1b[>c", nil},
	{"DECRQM", "\x1b[?2026$p", nil},
	{"kitty flags query", "\x1b[?u", nil},
	{"XTVERSION", "\x1b[>0q", nil},
	{"OSC 11 set", "\x1b]11;rgb:1111/2222/3333\a", nil},
	{"OSC 12 query", "\x1b]12;?\a", nil},
	{"DA1 with 1", "\x1b[1c", nil},
	{"DSR other", "\x1b[7n", nil},
	{"text", "c 6n ]11;?", nil},
	{"cancelled OSC", "\x1b]11;?\x18", nil},
}

func TestReplies(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, _ := write(c.out); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("whole: got %q, want %q", got, c.want)
			}
		})
	}
}

// A query split across output chunks at any byte is answered once, as if
// it had come whole.
func TestRepliesSplitAtEveryByte(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k := 1; k < len(c.out); k++ {
				got, r := write(c.out[:k], c.out[k:])
				if !reflect.DeepEqual(got, c.want) {
					t.Fatalf("split at %d (%q | %q): got %q, want %q", k, c.out[:k], c.out[k:], got, c.want)
				}
				if len(r.held) != 0 && !strings.HasSuffix(c.out, string(r.held)) {
					t.Fatalf("split at %d: holding %q", k, r.held)
				}
			}
		})
	}
}

func TestColoursAreSettable(t *testing.T) {
	r := New(at)
	r.Background = "rgb:ffff/ffff/ffff"
	got := replies(r.Feed([]byte("\x1b]11;?\a")))
	if want := []reply{{NameOSC11, "\x1b]11;rgb:ffff/ffff/ffff\a"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The cursor is read when the query is answered, not when the responder
// is made.
func TestCursorReadAtTheQuery(t *testing.T) {
	col, row := 0, 0
	r := New(func() (int, int) { return col, row })
	col, row = 79, 23
	got := replies(r.Feed([]byte("\x1b[6n")))
	if want := []reply{{NameCPR, "\x1b[24;80R"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// An unfinished sequence longer than any query is dropped, not held: an
// image or a clipboard write streams through without growing the hold,
// and queries after it are still answered.
func TestHeldIsBounded(t *testing.T) {
	r := New(at)
	r.Feed([]byte("\x1bPq" + strings.Repeat("#0;2;0;0;0", 100)))
	if len(r.held) > MaxHeld {
		t.Fatalf("holding %d bytes, more than %d", len(r.held), MaxHeld)
	}
	got := replies(r.Feed([]byte(strings.Repeat("~", 5000) + "\x1b\\\x1b[c")))
	if want := []reply{{NameDA1, DA1Reply}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if len(r.held) != 0 {
		t.Fatalf("still holding %q", r.held)
	}
}

func TestManyParameters(t *testing.T) {
	got, _ := write("\x1b[" + strings.Repeat("1;", 40) + "6n\x1b[6n")
	if want := []reply{{NameCPR, "\x1b[10;5R"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
