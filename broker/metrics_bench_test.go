//go:build linux

package broker

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// BenchmarkScrape200 is what one `/metrics` scrape of `sup metrics
// --listen` does at 200 supervisors: discover (state), ask each for its
// counters and histograms, write the exposition. In-process servers stand
// in for supervisors, as in BenchmarkDiscover200.
func BenchmarkScrape200(b *testing.B) {
	dir := shortDir(b)
	m := ipc.MetricsResult{
		Counters:   map[string]int64{"trigger_requests_total": 5, "trigger_delivered_total": 4, "trigger_error_ACK_TIMEOUT_total": 1},
		Histograms: map[string]ipc.Histogram{"trigger_latency_ms": {Bounds: []float64{1, 10, 100, 1000}, Counts: []int64{0, 1, 3, 4, 4}, Sum: 900, Count: 4}},
	}
	for i := range 200 {
		id := fmt.Sprintf("%012x", i)
		st := ipc.State{SessionID: id, Name: "agent-" + id, Lifecycle: "running", Activity: "ready", WaitingSince: int64(i + 1),
			Triggers: map[string]int{"delivered": 4}}
		serve(b, dir, st, method{ipc.MethodMetrics, func(context.Context, *ipc.Request) (any, error) { return m, nil }})
	}
	b.ResetTimer()
	for b.Loop() {
		snap, err := CollectMetrics(context.Background(), dir, time.Second)
		if err != nil || len(snap.Sessions) != 200 || len(snap.Metrics) != 200 {
			b.Fatalf("%d sessions, %d with metrics, %v", len(snap.Sessions), len(snap.Metrics), err)
		}
		if err := WriteMetrics(io.Discard, snap, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}
