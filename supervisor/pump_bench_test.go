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

// BenchmarkPump compares sup's output pump (pane write + tap into the screen
// tail) with a bare io.Copy of the same pty, alternating them in one run so
// both see the same machine state. ratio = sup throughput / bare throughput
// (goal ≥ 0.9).
func BenchmarkPump(b *testing.B) {
	fake := testutil.BuildPackage(b, "./testdata/fakeagent")
	var bare, sup time.Duration
	t := newTail(64 << 10)
	b.SetBytes(2 * floodBytes)
	for b.Loop() {
		bare += floodThrough(b, fake, func(r io.Reader) { io.Copy(io.Discard, r) })
		sup += floodThrough(b, fake, func(r io.Reader) { copyOutput(io.Discard, r, t.write) })
	}
	mb := func(d time.Duration) float64 { return float64(b.N) * floodBytes / d.Seconds() / 1e6 }
	b.ReportMetric(mb(bare), "bare-MB/s")
	b.ReportMetric(mb(sup), "sup-MB/s")
	b.ReportMetric(bare.Seconds()/sup.Seconds(), "ratio")
}
