package ipc

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestLoad: 100 concurrent clients × 1000 state-like calls each against a
// trivial handler, with zero errors. It logs the per-call latency
// percentiles.
func TestLoad(t *testing.T) {
	clients, calls := 100, 1000
	if testing.Short() {
		clients, calls = 100, 100
	}
	ts := startServer(t, ServerConfig{MaxConns: clients + 1}, func(s *Server) {
		s.Handle("state", func(ctx context.Context, req *Request) (any, error) {
			return map[string]any{"lifecycle": "running", "activity": "ready", "waiting_since": int64(1700000000000)}, nil
		})
	})
	lat := make([][]time.Duration, clients)
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Dial(ts.path, 5*time.Second)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			var st struct {
				Lifecycle string `msgpack:"lifecycle"`
			}
			ctx := context.Background()
			lat[i] = make([]time.Duration, 0, calls)
			for range calls {
				t0 := time.Now()
				if err := c.Call(ctx, "state", nil, &st); err != nil {
					errs <- err
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
				if st.Lifecycle != "running" {
					errs <- context.Canceled
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatalf("load: %v", err)
	}
	all := slices.Concat(lat...)
	if len(all) != clients*calls {
		t.Fatalf("%d calls completed, want %d", len(all), clients*calls)
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[int(p*float64(len(all)-1))] }
	t.Logf("%d clients × %d calls in %v (%.0f calls/s): p50 %v, p99 %v, max %v",
		clients, calls, elapsed.Round(time.Millisecond), float64(len(all))/elapsed.Seconds(),
		pct(0.50), pct(0.99), all[len(all)-1])
}

// BenchmarkCall measures one request/response round trip on one connection.
func BenchmarkCall(b *testing.B) {
	ts := startServer(b, ServerConfig{}, func(s *Server) {
		s.Handle("state", func(ctx context.Context, req *Request) (any, error) {
			return map[string]any{"lifecycle": "running"}, nil
		})
	})
	c := dialClient(b, ts.path)
	var st map[string]any
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := c.Call(ctx, "state", nil, &st); err != nil {
			b.Fatal(err)
		}
	}
}
