package caller

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// BenchmarkCallerCheck measures what the caller check adds to a call: a
// `state`-sized call on a fresh connection (as every sup verb and hook
// makes), served with and without ServerConfig.Classify, 10,000 calls per
// run. It reports p50 and p99 per call; the goal is at most 0.2 ms added
// (specs/security.md, "Who is calling"):
//
//	go test -run '^$' -bench CallerCheck -benchtime 10000x ./internal/caller
func BenchmarkCallerCheck(b *testing.B) {
	st := ipc.State{SessionID: "0123456789ab", Name: "doc", Lifecycle: "running", Activity: "ready", Summary: "a summary of some length"}
	for _, tc := range []struct {
		name     string
		classify func(ipc.Peer) (ipc.Caller, error)
	}{
		{"without", nil},
		{"with", Classifier(b.TempDir(), ipc.CallerSession{Name: "doc", ID: "0123456789ab"})},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sock := filepath.Join(b.TempDir(), "s.sock")
			ln, err := ipc.Listen(sock)
			if err != nil {
				b.Fatal(err)
			}
			srv := ipc.NewServer(ipc.ServerConfig{Classify: tc.classify})
			srv.Handle(ipc.MethodState, func(ctx context.Context, _ *ipc.Request) (any, error) {
				if c, ok := ipc.CallerFromContext(ctx); tc.classify != nil && (!ok || c.Kind != ipc.CallerOperator) {
					b.Errorf("caller %+v, want the operator", c)
				}
				return st, nil
			})
			go srv.Serve(ln)
			b.Cleanup(func() { srv.Close() })
			lat := make([]time.Duration, 0, b.N)
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				c, err := ipc.Dial(sock, time.Second)
				if err != nil {
					b.Fatal(err)
				}
				var got ipc.State
				if err := c.Call(ctx, ipc.MethodState, nil, &got); err != nil {
					b.Fatal(err)
				}
				c.Close()
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99_ms")
		})
	}
}
