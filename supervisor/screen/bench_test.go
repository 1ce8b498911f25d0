package screen

import (
	"os"
	"path/filepath"
	"testing"
)

// tuiMix is a realistic byte mix: the real agent recordings of the corpus
// (synchronized frames, truecolor SGR, box drawing, UTF-8, cursor moves)
// and the tmux recordings of vim, less and top.
func tuiMix(b *testing.B) []byte {
	var mix []byte
	for _, f := range []string{
		"../../testdata/corpus/claude/busy_streaming.raw",
		"../../testdata/corpus/claude/permission_prompt.raw",
		"../../testdata/corpus/codex/busy_streaming.raw",
		"../../testdata/corpus/codex/approval_prompt.raw",
	} {
		if data, err := os.ReadFile(f); err == nil {
			mix = append(mix, data...)
		}
	}
	for _, name := range []string{"agentlike", "vim", "less", "top"} {
		data, err := os.ReadFile(filepath.Join("testdata/replay", name+".bin"))
		if err != nil {
			b.Fatal(err)
		}
		mix = append(mix, data...)
	}
	return mix
}

// BenchmarkScreenWrite measures the emulator's throughput on the mix.
func BenchmarkScreenWrite(b *testing.B) {
	mix := tuiMix(b)
	s := New(120, 40)
	b.SetBytes(int64(len(mix)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.Write(mix)
	}
}

// BenchmarkScreenWriteASCII is the fast path alone: plain text lines.
func BenchmarkScreenWriteASCII(b *testing.B) {
	var p []byte
	for range 100 {
		p = append(p, "the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJKLMNOP\r\n"...)
	}
	s := New(120, 40)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for range b.N {
		s.Write(p)
	}
}

// BenchmarkModelFeed measures what the pump pays per chunk: a copy into
// the queue. The model's goroutine runs meanwhile (and may drop if the
// benchmark outpaces it, which is the point of the budget).
func BenchmarkModelFeed(b *testing.B) {
	mix := tuiMix(b)
	const chunk = 4 << 10 // a typical pty read
	m := NewModel(120, 40, Options{})
	defer m.Close()
	b.SetBytes(chunk)
	b.ReportAllocs()
	b.ResetTimer()
	off := 0
	for range b.N {
		if off+chunk > len(mix) {
			off = 0
		}
		m.Feed(mix[off : off+chunk])
		off += chunk
	}
	b.StopTimer()
	m.Sync()
	st := m.Stats()
	b.ReportMetric(float64(st.Drops), "drops")
}

// BenchmarkSnapshot is the cost of a classifier's look at a 120x40 screen.
func BenchmarkSnapshot(b *testing.B) {
	m := NewModel(120, 40, Options{})
	defer m.Close()
	m.Feed(tuiMix(b))
	m.Sync()
	b.ReportAllocs()
	for range b.N {
		_ = m.Snapshot()
	}
}

// BenchmarkModelThroughput is the whole path, Feed to applied, with a
// budget large enough that nothing is dropped.
func BenchmarkModelThroughput(b *testing.B) {
	mix := tuiMix(b)
	const chunk = 4 << 10
	m := NewModel(120, 40, Options{QueueBytes: 1 << 30})
	defer m.Close()
	b.SetBytes(int64(len(mix)))
	b.ReportAllocs()
	for range b.N {
		for off := 0; off < len(mix); off += chunk {
			m.Feed(mix[off:min(off+chunk, len(mix))])
		}
		m.Sync()
	}
	if st := m.Stats(); st.Drops != 0 {
		b.Fatalf("dropped %d chunks", st.Drops)
	}
}
