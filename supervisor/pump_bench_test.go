//go:build linux

package supervisor

import (
	"io"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// floodBytes is what one flood of the child writes through the pty.
const floodBytes = 32 << 20

// floodThrough runs fakeagent -flood behind a fresh pty and drains the master
// with drain, returning how long the drain took.
func floodThrough(b *testing.B, fake string, drain func(io.Reader)) time.Duration {
	// -raw: TUIs turn output processing off; cooked ONLCR caps a pty near 64 MB/s.
	cmd := exec.Command(fake, "-raw", "-flood", strconv.Itoa(floodBytes))
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		b.Fatal(err)
	}
	master, err := proc.Pollable(ptmx) // read the master as sup does
	if err != nil {
		b.Fatal(err)
	}
	defer master.Close()
	start := time.Now()
	c0 := cpuTime()
	drain(master)
	elapsed := time.Since(start)
	lastCPU = cpuTime() - c0
	if err := cmd.Wait(); err != nil {
		b.Fatalf("fakeagent -flood: %v", err)
	}
	return elapsed
}

// BenchmarkPump compares sup's output pump with a bare io.Copy of the same
// pty. Each iteration is a round of three floods — bare copy, the pump
// alone (pane write, no tap) and the pump feeding the screen model, as sup
// runs it — in an order that rotates every round, so all three see the same
// machine state; the ratios are per round, and the median over rounds is
// reported (a shared machine's noise hits single rounds). ratio =
// pump-with-model throughput / bare (goal ≥ 0.9); model-ratio = with model
// / without (goal: no measurable change — the model may lag, the pump must
// not). Run with -benchtime=Nx for N rounds.
func BenchmarkPump(b *testing.B) {
	fake := testutil.FakeAgent(b)
	var ratios, modelRatios []float64
	var bare, plain, withModel time.Duration
	var dropped int64
	var cpu [3]time.Duration
	b.SetBytes(3 * floodBytes)
	round := 0
	for b.Loop() {
		var d, c [3]time.Duration
		for k := range 3 {
			switch i := (round + k) % 3; i {
			case 0:
				d[i] = floodThrough(b, fake, func(r io.Reader) { io.Copy(io.Discard, r) })
			case 1:
				d[i] = floodThrough(b, fake, func(r io.Reader) { proc.CopyOutput(io.Discard, r, func([]byte) {}) })
			case 2:
				v := newView(120, 40, false)
				d[i] = floodThrough(b, fake, func(r io.Reader) { proc.CopyOutput(io.Discard, r, v.model.Feed) })
				dropped += v.model.Stats().DroppedBytes
				v.model.Close()
			}
			c[(round+k)%3] = lastCPU
		}
		round++
		cpu[0], cpu[1], cpu[2] = cpu[0]+c[0], cpu[1]+c[1], cpu[2]+c[2]
		bare, plain, withModel = bare+d[0], plain+d[1], withModel+d[2]
		ratios = append(ratios, d[0].Seconds()/d[2].Seconds())
		modelRatios = append(modelRatios, d[1].Seconds()/d[2].Seconds())
	}
	mb := func(d time.Duration) float64 { return float64(b.N) * floodBytes / d.Seconds() / 1e6 }
	b.ReportMetric(mb(bare), "bare-MB/s")
	b.ReportMetric(mb(plain), "pump-MB/s")
	b.ReportMetric(mb(withModel), "pump+model-MB/s")
	cpuPerMB := func(d time.Duration) float64 { return d.Seconds() * 1e3 / (float64(b.N) * floodBytes / 1e6) }
	b.ReportMetric(cpuPerMB(cpu[0]), "bare-cpu-ms/MB")
	b.ReportMetric(cpuPerMB(cpu[1]), "pump-cpu-ms/MB")
	b.ReportMetric(cpuPerMB(cpu[2]), "pump+model-cpu-ms/MB")
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(median(modelRatios), "model-ratio")
	b.ReportMetric(float64(dropped)/float64(b.N)/1e6, "model-dropped-MB/op")
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

var lastCPU time.Duration

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
