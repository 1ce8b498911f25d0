package question

import (
	"strings"
	"testing"
)

// BenchmarkDetect: a turn's message is read once per Stop hook, inside
// the hook's round trip; a typical closing message, and inputs built to
// be slow (MaxInput bytes of sentences, quotes, unmatched backticks).
func BenchmarkDetect(b *testing.B) {
	d, err := Compile(testConfig)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, msg string }{
		{"typical", "I updated `main.go` and the tests pass (see https://ci.example/run?id=4).\n\nShould I push the branch?"},
		{"questions", strings.Repeat("a? ", MaxInput/3)},
		{"quotes", strings.Repeat(`"a" `, MaxInput/4)},
		{"backticks", strings.Repeat("`a ``b ", MaxInput/7)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.msg)))
			for b.Loop() {
				d.Detect(c.msg)
			}
		})
	}
}
