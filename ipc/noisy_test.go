//go:build linux

package ipc

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

func TestNoisyBurstThenSummaryPerInterval(t *testing.T) {
	var buf testutil.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	clock := time.Unix(1_700_000_000, 0)
	n := newNoisy(log, func() time.Time { return clock }, 5, time.Minute)
	// 10 minutes of 100 bad frames a second, plus one refused peer.
	for range 10 * 60 {
		for range 100 {
			n.warn(log, NoisyBadFrame, "ipc: bad")
		}
		clock = clock.Add(time.Second)
	}
	n.warn(log, NoisyRefusedPeer, "ipc: refused")
	n.flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	full := strings.Count(buf.String(), `msg="ipc: bad"`)
	summaries := strings.Count(buf.String(), `suppressed" kind=bad_frame`)
	// Each of the 10 intervals: 5 in full; 10 summaries (9 at the next
	// interval's first warning, 1 at flush); the refused peer in full.
	if full != 50 || summaries != 10 || len(lines) != 61 {
		t.Errorf("%d full, %d summaries, %d lines; want 50, 10, 61:\n%s", full, summaries, len(lines), buf.String())
	}
	if !strings.Contains(buf.String(), "suppressed=5995") {
		t.Errorf("a summary must carry the count suppressed in its interval (6000-5):\n%s", lines[6])
	}
	got := n.counters()
	if got["ipc_bad_frame_total"] != 60000 || got["ipc_refused_peer_total"] != 1 || len(got) != 2 {
		t.Errorf("counters %v", got)
	}
}

// TestBadConnectionStormIsSummarised: 10,000 connections that each send a
// bad frame (empty, oversize, not a request, cut off) to a real server
// write at most burst+1 lines per kind in an interval — here 3 kinds
// (bad_frame, oversize_request, bad_request) × 6 = 18 lines, against one
// per connection before — and the counters have all 10,000.
func TestBadConnectionStormIsSummarised(t *testing.T) {
	conns := 10000
	if testing.Short() {
		conns = 1000
	}
	clock := time.Unix(1_700_000_000, 0) // frozen: the whole storm is one interval
	srv := startServer(t, ServerConfig{Now: func() time.Time { return clock }}, testHandlers)
	bad := [][]byte{
		{0, 0, 0, 0},             // empty frame
		{0xff, 0xff, 0xff, 0xff}, // oversize
		{0, 0, 0, 1, 0xc1},       // not msgpack: a bad request
		{0, 0, 0, 9, 0x81},       // cut off: the connection ends inside the frame
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := net.Dial("unix", srv.path)
			if err != nil {
				t.Errorf("dial: %v", err)
				return
			}
			defer c.Close()
			c.Write(bad[i%len(bad)])
			if i%len(bad) == 2 {
				// A bad request keeps the connection: it is answered.
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				c.Read(make([]byte, 512))
				return
			}
			if i%len(bad) == 3 {
				return // close with the frame half-written
			}
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			for {
				if _, err := c.Read(make([]byte, 512)); err != nil {
					return // the server closed it
				}
			}
		}()
	}
	wg.Wait()
	// The server counts a cut-off frame when it reads EOF: wait for all.
	want := map[string]int64{
		"ipc_bad_frame_total": int64(conns / 2), "ipc_oversize_request_total": int64(conns / 4),
		"ipc_bad_request_total": int64(conns / 4),
	}
	deadline := time.Now().Add(10 * time.Second)
	var got map[string]int64
	for {
		got = srv.NoisyCounters()
		var total int64
		for _, v := range got {
			total += v
		}
		if total == int64(conns) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d (all %v)", k, got[k], v, got)
		}
	}
	srv.Close() // flushes the summaries
	warns := bytes.Count([]byte(srv.logs.String()), []byte("level=WARN"))
	if warns > 3*(DefaultNoisyBurst+1) {
		t.Errorf("%d WARN lines for %d bad connections, want at most %d:\n%s", warns, conns, 3*(DefaultNoisyBurst+1), srv.logs.String())
	}
	if !strings.Contains(srv.logs.String(), "kind=bad_frame suppressed=") {
		t.Errorf("no summary line for bad frames:\n%s", srv.logs.String())
	}
	t.Logf("%d bad connections: %d WARN lines, counters %v", conns, warns, got)
}

func TestUnknownMethodAndBadHookCounted(t *testing.T) {
	srv := startServer(t, ServerConfig{}, func(s *Server) {
		s.Handle(MethodHook, func(ctx context.Context, req *Request) (any, error) {
			return nil, Errorf(CodeBadRequest, "hook: params need event")
		})
	})
	c, err := Dial(srv.path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for range 3 {
		c.Call(ctx, "nope", nil, nil)
		c.Call(ctx, MethodHook, map[string]any{"agent": "claude"}, nil)
	}
	got := srv.NoisyCounters()
	if got["ipc_unknown_method_total"] != 3 || got["ipc_bad_hook_total"] != 3 {
		t.Errorf("counters %v, want 3 unknown methods and 3 bad hooks", got)
	}
	if !strings.Contains(srv.logs.String(), `msg="ipc: hook payload refused" peer_pid=`) {
		t.Errorf("log:\n%s", srv.logs.String())
	}
}
