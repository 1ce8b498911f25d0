package modelread

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"
)

// corpusEntry is one screen of testdata/redact/secrets.txtar.
type corpusEntry struct {
	name          string
	text          string
	secrets, keep []string
	width         int // the screen's width: its widest line, in runes
}

func loadCorpus(tb testing.TB) []corpusEntry {
	tb.Helper()
	ar, err := txtar.ParseFile("testdata/redact/secrets.txtar")
	if err != nil {
		tb.Fatal(err)
	}
	var out []corpusEntry
	for _, f := range ar.Files {
		e := corpusEntry{name: f.Name}
		var lines []string
		for line := range strings.Lines(string(f.Data)) {
			line = strings.TrimSuffix(line, "\n")
			switch {
			case strings.HasPrefix(line, "!secret "):
				e.secrets = append(e.secrets, strings.TrimPrefix(line, "!secret "))
			case strings.HasPrefix(line, "!keep "):
				e.keep = append(e.keep, strings.TrimPrefix(line, "!keep "))
			default:
				lines = append(lines, line)
				e.width = max(e.width, utf8.RuneCountInString(line))
			}
		}
		e.text = strings.Join(lines, "\n")
		out = append(out, e)
	}
	if len(out) < 30 {
		tb.Fatalf("the corpus has %d screens", len(out))
	}
	return out
}

// TestRedactCorpus: no secret of the corpus reaches the endpoint, and the
// text a model needs to read the screen (the "!keep" lines) does.
func TestRedactCorpus(t *testing.T) {
	red, err := NewRedactor(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range loadCorpus(t) {
		t.Run(e.name, func(t *testing.T) {
			out := red.Redact(e.text)
			for _, s := range e.secrets {
				if strings.Contains(out, s) {
					t.Errorf("%q survives:\n%s", s, out)
				}
			}
			for _, k := range e.keep {
				if !strings.Contains(out, k) {
					t.Errorf("%q is gone:\n%s", k, out)
				}
			}
		})
	}
}

// TestRedactWrapOnlyFullLines: a line break is a wrap only after a line as
// wide as the screen; two short lines are two lines, and an ordinary word
// starting the line after a token is not taken with it.
func TestRedactWrapOnlyFullLines(t *testing.T) {
	red, _ := NewRedactor(nil)
	for in, want := range map[string]string{
		// Not full: the second line's words are not part of the key.
		"a longer line above everything else here\nkey AKIAZZFAKEEXAMPLE7Q2\nNext step": "a longer line above everything else here\nkey [REDACTED]\nNext step",
		// Full, but the token is whole on its line: the next line stays.
		"token ghp_0123456789abcdefghijABCDEFGH\nContinue?": "token [REDACTED]\nContinue?",
		// Identifiers across a full line are not one random run.
		"return some_really_long_identifier_name\nanother_long_identifier_without_digit": "return some_really_long_identifier_name\nanother_long_identifier_without_digit",
	} {
		if got := red.Redact(in); got != want {
			t.Errorf("Redact(%q) =\n%q\nwant\n%q", in, got, want)
		}
	}
}

// FuzzRedact: a corpus screen with any text above and below it (on a
// screen as wide: lines are cut to its width) keeps none of its secrets.
func FuzzRedact(f *testing.F) {
	red, err := NewRedactor(nil)
	if err != nil {
		f.Fatal(err)
	}
	corpus := loadCorpus(f)
	for i := range corpus {
		f.Add("before ", " after", uint8(i))
	}
	f.Add("", "\n", uint8(0))
	f.Add("-----BEGIN PRIVATE KEY-----", "x\n\n\n", uint8(3))
	f.Fuzz(func(t *testing.T, pre, post string, i uint8) {
		e := corpus[int(i)%len(corpus)]
		pre, post = cutLines(pre, e.width), cutLines(post, e.width)
		out := red.Redact(pre + "\n\n" + e.text + "\n\n" + post)
		for _, s := range e.secrets {
			if strings.Count(out, s) > strings.Count(pre, s)+strings.Count(post, s) {
				t.Fatalf("%s: %q survives: %q", e.name, s, out)
			}
		}
	})
}

// cutLines cuts each line of s to at most width runes.
func cutLines(s string, width int) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		r := []rune(body)
		if len(r) > width {
			body = string(r[:width])
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// BenchmarkRedact: one full screen (MaxScreen) of a TUI's box, every line
// as wide as the screen and joined as a wrap — the most the wrap pass
// does. A call is made at most `budget` times an hour, off the watcher's
// path. go test -run '^$' -bench BenchmarkRedact ./supervisor/modelread
func BenchmarkRedact(b *testing.B) {
	red, err := NewRedactor(nil)
	if err != nil {
		b.Fatal(err)
	}
	line := "│ Some ordinary text of a screen, with a path /home/u/p/x.go and words │\n"
	screen := strings.Repeat(line, MaxScreen/len(line))
	b.SetBytes(int64(len(screen)))
	for b.Loop() {
		red.Redact(screen)
	}
}
