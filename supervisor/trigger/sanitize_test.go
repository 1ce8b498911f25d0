package trigger

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sup-tmux/sup/internal/safetext"
)

func TestSanitize(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "fix the tests", "fix the tests"},
		{"newline and tab kept", "a\n\tb\n", "a\n\tb\n"},
		{"CR dropped", "line1\r\nline2\r", "line1\nline2"},
		{"paste end cannot be forged", "x\x1b[201~rm -rf /\r", "x[201~rm -rf /"},
		{"ESC sequences lose their ESC", "\x1b]0;title\x07\x1b[31mred", "]0;title[31mred"},
		{"C0 dropped", "a\x00b\x03c\x04d\x08e\x7f", "abcde"},
		{"C1 dropped", "a\u0085b\u009bc", "abc"},
		{"raw C1 byte is invalid UTF-8", "a\x9b31m", "a\uFFFD31m"},
		{"invalid UTF-8 replaced", "ok\xff\xfeend", "ok\uFFFD\uFFFDend"},
		{"unicode kept", "héllo 世界 🚀", "héllo 世界 🚀"},
		{"RLO dropped", "run tests\u202e; txt.exe", "run tests; txt.exe"},
		{"every bidi override dropped", "a\u202ab\u202bc\u202cd\u202de\u202ef", "abcdef"},
		{"isolates dropped", "a\u2066b\u2067c\u2068d\u2069e", "abcde"},
		{"marks dropped", "a\u200eb\u200fc\u061cd", "abcd"},
		{"line and paragraph separators dropped", "a\u2028b\u2029c", "abc"},
		{"every C1 dropped", "a\u0080b\u009fc\u008dd", "abcd"},
		{"OSC 52 clipboard write loses its ESC and BEL", "\x1b]52;c;ZXZpbA==\x07ok", "]52;c;ZXZpbA==ok"},
		{"CSI clear loses its ESC", "\x1b[2J\x1b[Hx", "[2J[Hx"},
		{"zero-width joiner kept (emoji sequences)", "👩\u200d💻", "👩\u200d💻"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Sanitize(c.in); got != c.want {
				t.Fatalf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestCheckSize(t *testing.T) {
	if err := CheckSize(strings.Repeat("x", 8192), 8192); err != nil {
		t.Fatalf("8192 bytes at limit 8192: %v", err)
	}
	err := CheckSize(strings.Repeat("x", 8193), 8192)
	if err == nil || !strings.Contains(err.Error(), "8193 bytes") || !strings.Contains(err.Error(), "8192") {
		t.Fatalf("8193 bytes: %v, want an error naming both sizes", err)
	}
}

func TestSanitizeID(t *testing.T) {
	for in, want := range map[string]string{
		"trg-1.a_b:c":            "trg-1.a_b:c",
		"a b]\n[BRIDGE_TRIGGER":  "abBRIDGE_TRIGGER",
		"thread=x reason=y":      "threadxreasony",
		"é":                      "",
		strings.Repeat("a", 200): strings.Repeat("a", 128),
	} {
		if got := SanitizeID(in); got != want {
			t.Errorf("SanitizeID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEnvelope(t *testing.T) {
	got := Envelope("trg-1", "th 1", "review]", "line one\nline two")
	want := "[BRIDGE_TRIGGER id=trg-1 thread=th1 reason=review]\nline one\nline two\n[/BRIDGE_TRIGGER]"
	if got != want {
		t.Fatalf("Envelope = %q, want %q", got, want)
	}
	if got := Envelope("a", "t", "", "p"); got != "[BRIDGE_TRIGGER id=a thread=t]\np\n[/BRIDGE_TRIGGER]" {
		t.Fatalf("without reason: %q", got)
	}
}

// FuzzSanitize: whatever comes in, what goes out cannot contain ESC, a C0
// control other than \n and \t, DEL, a C1 control or any other rune
// safetext.Unsafe reports (bidi overrides and isolates), is valid UTF-8,
// and sanitising again changes nothing.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "a\x1b[201~b", "\r\n", "\xc2\x9b", "\xff", "é\x00", "\x1b]52;c;ZZ\x07", "\u202e\u2066x\u2069", "\xe2\x80\xae"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		if !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, out)
		}
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				t.Fatalf("Sanitize(%q) = %q: holds control %U", in, out, r)
			}
			if r != '\n' && r != '\t' && safetext.Unsafe(r) {
				t.Fatalf("Sanitize(%q) = %q: holds %U, which safetext calls unsafe", in, out, r)
			}
		}
		if strings.Contains(out, "\x1b[201~") {
			t.Fatalf("Sanitize(%q) = %q: holds a paste end", in, out)
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, again)
		}
	})
}
