//go:build linux

package ipc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestLoad: 100 concurrent clients × 1000 state-like calls each against a
// trivial handler, with zero errors (`go test ./ipc`). It logs the
// per-call latency percentiles. Under -race, as make test runs it, each
// client makes 200: the race detector needs the 100 clients at once, not
// the volume, which cost the suite ~40 CPU-seconds; the full volume is
// then a plain `go test ./ipc`, and throughput the bench's
// (specs/testing.md, "Fourth pass").
func TestLoad(t *testing.T) {
	clients, calls := 100, 1000
	if testing.Short() {
		clients, calls = 100, 100
	} else if testutil.RaceDetector() {
		calls = 200
	}
	ts := startServer(t, ServerConfig{MaxConns: clients + 1}, func(s *Server) {
		s.Handle("state", func(ctx context.Context, req *Request) (any, error) {
			return map[string]any{"lifecycle": "running", "activity": "ready", "waiting_since": int64(1700000000000)}, nil
		})
	})
	res := testutil.RunLoad(clients, calls, func() (func() error, func(), error) {
		c, err := Dial(ts.path, 5*time.Second)
		if err != nil {
			return nil, nil, err
		}
		call := func() error {
			var st struct {
				Lifecycle string `msgpack:"lifecycle"`
			}
			if err := c.Call(context.Background(), "state", nil, &st); err != nil {
				return err
			}
			if st.Lifecycle != "running" {
				return fmt.Errorf("lifecycle %q, want running", st.Lifecycle)
			}
			return nil
		}
		return call, func() { c.Close() }, nil
	})
	if res.Errors != 0 {
		t.Fatalf("%d of %d calls failed; first: %v", res.Errors, clients*calls, res.FirstErr)
	}
	t.Log(res)
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
