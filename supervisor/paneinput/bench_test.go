package paneinput

import (
	"bytes"
	"testing"
)

// The tokenizer's cost per read, so the keystroke latency through sup can
// be shown not to grow: go test -run='^$' -bench=. ./supervisor/paneinput/

func benchFeed(b *testing.B, in []byte) {
	tz := New(0)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		tz.Feed(in, t0)
	}
}

func BenchmarkKey(b *testing.B)      { benchFeed(b, []byte("a")) }
func BenchmarkArrowKey(b *testing.B) { benchFeed(b, []byte("\x1b[A")) }

func BenchmarkPaste4KiB(b *testing.B) {
	in := append(append([]byte("\x1b[200~"), bytes.Repeat([]byte("paste me "), 4096/9)...), "\x1b[201~"...)
	benchFeed(b, in)
}

func BenchmarkStartupReplies(b *testing.B) {
	benchFeed(b, []byte("\x1b[?1;2c\x1b]11;rgb:0000/0000/0000\a\x1b[?0u\x1b[12;1R"))
}
