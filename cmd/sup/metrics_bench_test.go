//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// BenchmarkMetricsHTTP200 is one Prometheus scrape of a real `sup metrics
// --listen` process over HTTP, with 200 in-process supervisor stand-ins
// answering state and metrics (the goal: ≤ 50 ms).
//
//	go test ./cmd/sup -run '^$' -bench MetricsHTTP200
func BenchmarkMetricsHTTP200(b *testing.B) {
	f := testutil.NewRig(b, "")
	m := ipc.MetricsResult{
		Counters:   map[string]int64{"trigger_requests_total": 5, "trigger_delivered_total": 4, "trigger_error_ACK_TIMEOUT_total": 1},
		Histograms: map[string]ipc.Histogram{"trigger_latency_ms": {Bounds: []float64{1, 10, 100, 1000}, Counts: []int64{0, 1, 3, 4, 4}, Sum: 900, Count: 4}},
	}
	for i := range 200 {
		s := ipctest.Serve(b, f.RuntimeDir(), ipc.State{SessionID: fmt.Sprintf("%012x", i), Name: fmt.Sprintf("agent%03d", i),
			Lifecycle: "running", Activity: "ready", WaitingSince: int64(i + 1), Triggers: map[string]int{"delivered": 4}})
		s.Server.Handle(ipc.MethodMetrics, func(context.Context, *ipc.Request) (any, error) { return m, nil })
	}
	addr, _ := serveMetricsProcess(b, f, "--listen", "127.0.0.1:0")
	for b.Loop() {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || n < 100_000 {
			b.Fatalf("scrape: %s, %d bytes, %v", resp.Status, n, err)
		}
	}
}
