package question

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDetect: whatever an agent writes, Detect never panics, is
// deterministic, returns one line of at most MaxQuestion runes (valid
// UTF-8), asks nothing without a question and Mask keeps every offset.
// Every crash ever found stays in testdata/fuzz/FuzzDetect.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{"Should I delete the 3 stale branches?", "Run `x?`.", "```\n?\n", "Options:\n1. a\n2. b",
		`"a" "b?"`, "Ok? 🙂", "\xff?", "> q?\n\nok", "https://x/?q", "Please confirm."} {
		f.Add(s)
	}
	d, err := Compile(testConfig)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		r := d.Detect(msg)
		if again := d.Detect(msg); again != r {
			t.Fatalf("not deterministic: %+v / %+v", r, again)
		}
		if strings.ContainsAny(r.Question, "\n\r\t\x1b\u202e") || !utf8.ValidString(r.Question) || utf8.RuneCountInString(r.Question) > MaxQuestion {
			t.Fatalf("question %q: want one valid line of at most %d runes", r.Question, MaxQuestion)
		}
		if r.Asked != (r.Question != "") && r.Why != WhyOptions {
			t.Fatalf("asked %v with question %q", r.Asked, r.Question)
		}
		if m := Mask(msg); len(m) != len(msg) || strings.Count(m, "\n") != strings.Count(msg, "\n") {
			t.Fatalf("Mask changed offsets: %q -> %q", msg, m)
		}
	})
}
