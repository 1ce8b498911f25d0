package supervisor

import (
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/testutil"
)

// floodBytes is what one run of the child writes through the pty.
const floodBytes = 64 << 20

// floodThrough runs fakeagent -flood behind a fresh pty and drains the master
// with drain, returning how long the drain took.
func floodThrough(b *testing.B, fake string, drain func(io.Reader)) time.Duration {
	// -raw: TUIs turn output processing off; cooked ONLCR caps a pty near 64 MB/s.
	cmd := exec.Command(fake, "-raw", "-flood", "67108864")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		b.Fatal(err)
	}
	defer ptmx.Close()
	start := time.Now()
	drain(ptmx)
	elapsed := time.Since(start)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("fakeagent -flood: %v", err)
	}
	return elapsed
}

// BenchmarkPump compares sup's output pump with a bare io.Copy of the same
// pty, alternating them in one run so all see the same machine state: the
// pump alone (pane write, no tap) and the pump feeding the screen model, as
// sup runs it. ratio = pump-with-model throughput / bare throughput (goal
// ≥ 0.9); model-ratio = with model / without (goal: no measurable change —
// the model may lag, the pump must not).
func BenchmarkPump(b *testing.B) {
	fake := testutil.BuildPackage(b, "./testdata/fakeagent")
	var bare, plain, withModel time.Duration
	var dropped int64
	b.SetBytes(3 * floodBytes)
	for b.Loop() {
		bare += floodThrough(b, fake, func(r io.Reader) { io.Copy(io.Discard, r) })
		plain += floodThrough(b, fake, func(r io.Reader) { copyOutput(io.Discard, r, func([]byte) {}) })
		v := newView(120, 40)
		withModel += floodThrough(b, fake, func(r io.Reader) { copyOutput(io.Discard, r, v.model.Feed) })
		dropped += v.model.Stats().DroppedBytes
		v.model.Close()
	}
	mb := func(d time.Duration) float64 { return float64(b.N) * floodBytes / d.Seconds() / 1e6 }
	b.ReportMetric(mb(bare), "bare-MB/s")
	b.ReportMetric(mb(plain), "pump-MB/s")
	b.ReportMetric(mb(withModel), "pump+model-MB/s")
	b.ReportMetric(bare.Seconds()/withModel.Seconds(), "ratio")
	b.ReportMetric(plain.Seconds()/withModel.Seconds(), "model-ratio")
	b.ReportMetric(float64(dropped)/float64(b.N)/1e6, "model-dropped-MB/op")
}
