//go:build linux

package supervisor_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// BenchmarkModelSummaryLatency: from the unknown dialog's last byte (the
// session's last_output_at) to the model's summary in `sup queue`, with
// the stand-in answering in 500 ms and unknown_after 1s (the screen-stable
// time). Goal: ≤ unknown_after + 1 s. Reported as ms/summary.
//
//	go test -run '^$' -bench BenchmarkModelSummaryLatency -benchtime 3x ./supervisor/
func BenchmarkModelSummaryLatency(b *testing.B) {
	var total time.Duration
	for range b.N {
		total += modelSummaryOnce(b)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/summary")
	b.ReportMetric(1000, "stable_ms")
}

func modelSummaryOnce(b *testing.B) time.Duration {
	b.Helper()
	fm, err := fakemodel.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer fm.Close()
	r := newRig(b, "model:\n  endpoint: "+fm.URL+"/v1\n  name: fake\n")
	r.write("config/sup/profiles/confirm.yaml", testutil.ConfirmProfile+"unknown_after: 1s\n")
	fm.Queue(fakemodel.Turn{Text: menuReading, Delay: 500 * time.Millisecond})
	r.startMenu()
	var seen time.Time
	testutil.WaitUntil(b, 20*time.Second, "the summary in sup queue", func() bool {
		out, err := r.sup("queue")
		seen = time.Now()
		return err == nil && strings.Contains(out, "Deploy target: staging or production?")
	})
	drawn := time.UnixMilli(r.state("doc").LastOutputAt)
	return seen.Sub(drawn)
}

// BenchmarkModelIdleCalls: 20 idle agents whose screens a rule reads,
// left alone for SUP_BENCH_IDLE (default 20s; the figure is 10m),
// make no model call. Reported as calls (goal 0).
//
//	SUP_BENCH_IDLE=10m go test -run '^$' -bench BenchmarkModelIdleCalls -benchtime 1x -timeout 15m ./supervisor/
func BenchmarkModelIdleCalls(b *testing.B) {
	idle := 20 * time.Second
	if v := os.Getenv("SUP_BENCH_IDLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("SUP_BENCH_IDLE=%q: want a duration such as 10m", v)
		}
		idle = d
	}
	for range b.N {
		fm, err := fakemodel.Start()
		if err != nil {
			b.Fatal(err)
		}
		r := newRig(b, "default_profile: confirm\nmodel:\n  endpoint: "+fm.URL+"/v1\n  name: fake\n  summaries: true\n")
		r.write("config/sup/profiles/confirm.yaml", testutil.ConfirmProfile+"unknown_after: 1s\n")
		for i := range 20 {
			r.Start("idle"+strconv.Itoa(i), "-title", "[>] idle")
		}
		testutil.WaitUntil(b, 30*time.Second, "20 ready sessions", func() bool {
			for i := range 20 {
				if r.state("idle"+strconv.Itoa(i)).Activity != "ready" {
					return false
				}
			}
			return true
		})
		time.Sleep(idle)
		b.ReportMetric(float64(fm.Count("chat")), "calls")
		b.ReportMetric(idle.Seconds(), "idle_s")
		fm.Close()
	}
}
