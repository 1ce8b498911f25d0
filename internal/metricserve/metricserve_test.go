package metricserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestSharedOneCollectionForAll: 500 concurrent callers share one
// collection; within TTL the result is reused, errors included; after TTL
// the next caller collects again.
func TestSharedOneCollectionForAll(t *testing.T) {
	clk := &clock{now: time.Unix(1000, 0)}
	gate := make(chan struct{})
	var n atomic.Int64
	s := &Shared{TTL: time.Second, Now: clk.Now, Collect: func(ctx context.Context) ([]byte, error) {
		<-gate
		k := n.Add(1)
		if k == 2 {
			return nil, errors.New("supervisor gone")
		}
		return fmt.Appendf(nil, "body %d", k), nil
	}}
	var wg sync.WaitGroup
	bodies := make([]string, 500)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := s.Get(context.Background())
			if err != nil {
				t.Error(err)
			}
			bodies[i] = string(b)
		}()
	}
	for s.Collections() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let the callers pile onto the flight
	close(gate)
	wg.Wait()
	for i, b := range bodies {
		if b != "body 1" {
			t.Fatalf("caller %d got %q, want the shared body 1", i, b)
		}
	}
	if got := s.Collections(); got != 1 {
		t.Fatalf("%d collections for 500 concurrent callers, want 1", got)
	}
	clk.Advance(999 * time.Millisecond)
	if b, _ := s.Get(context.Background()); string(b) != "body 1" || s.Collections() != 1 {
		t.Fatalf("within TTL: %q after %d collections, want the cached body 1", b, s.Collections())
	}
	clk.Advance(time.Millisecond)
	if _, err := s.Get(context.Background()); err == nil || s.Collections() != 2 {
		t.Fatalf("after TTL: err %v after %d collections, want collection 2's error", err, s.Collections())
	}
	if _, err := s.Get(context.Background()); err == nil || s.Collections() != 2 {
		t.Fatalf("an error is reused within TTL too: err %v, %d collections", err, s.Collections())
	}
}

// TestSharedCallerHangsUp: a caller whose context ends gets its error at
// once; the collection it started goes on and serves the next caller.
func TestSharedCallerHangsUp(t *testing.T) {
	gate := make(chan struct{})
	s := &Shared{TTL: time.Minute, Collect: func(ctx context.Context) ([]byte, error) {
		select {
		case <-gate:
			return []byte("ok"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Get(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v", err)
	}
	close(gate)
	if b, err := s.Get(context.Background()); string(b) != "ok" || err != nil || s.Collections() != 1 {
		t.Fatalf("next caller: %q %v after %d collections, want the first collection's ok", b, err, s.Collections())
	}
}

// TestLimitListenerCaps: with the cap reached, the next connection is not
// accepted until one closes.
func TestLimitListenerCaps(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := LimitListener(inner, make(chan struct{}, 2))
	defer ln.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first := <-accepted
	<-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted past the cap of 2")
	case <-time.After(100 * time.Millisecond):
	}
	first.Close()
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("the third connection was never accepted after one closed")
	}
}

// TestServerSlowloris: clients that send headers a byte at a time are
// closed within ReadHeaderTimeout, whatever the pace, and a real scrape
// behind them is served.
func TestServerSlowloris(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out ReadHeaderTimeout")
	}
	s := &Shared{TTL: time.Second, Collect: func(context.Context) ([]byte, error) { return []byte("m 1\n"), nil }}
	srv := NewServer(Handler(s, "text/plain"), 10*time.Second, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Serve(ctx, srv, []net.Listener{ln})
	addr := ln.Addr().String()

	start := time.Now()
	var wg sync.WaitGroup
	closedAfter := make(chan time.Duration, 2*MaxConns)
	for range 2 * MaxConns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := "GET /metrics HTTP/1.1\r\nHost: x\r\n"
			for i := 0; ; i++ {
				if _, err := c.Write([]byte{req[i%len(req)]}); err != nil {
					break
				}
				time.Sleep(200 * time.Millisecond)
				if time.Since(start) > 3*ReadHeaderTimeout {
					t.Errorf("slowloris connection still open after %v", time.Since(start))
					return
				}
			}
			closedAfter <- time.Since(start)
		}()
	}
	resp, err := (&http.Client{Timeout: 2*ReadHeaderTimeout + 5*time.Second}).Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("a scrape behind %d slowloris connections: %v", 2*MaxConns, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "m 1\n" {
		t.Fatalf("scrape: %s %q", resp.Status, body)
	}
	wg.Wait()
	t.Logf("scrape served after %v; slowloris connections closed by %v", time.Since(start), ReadHeaderTimeout)
}

// TestHandlerMethods: only GET and HEAD.
func TestHandlerMethods(t *testing.T) {
	s := &Shared{TTL: time.Second, Collect: func(context.Context) ([]byte, error) { return []byte("m 1\n"), nil }}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Serve(ctx, NewServer(Handler(s, "text/plain"), time.Second, nil), []net.Listener{ln})
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
	line, _ := bufio.NewReader(c).ReadString('\n')
	if !strings.Contains(line, "405") {
		t.Fatalf("POST: %q, want 405", line)
	}
}

// TestDescribe: a specific address is itself; an unspecified one lists
// interface addresses with the port.
func TestDescribe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if got := Describe(ln); len(got) != 1 || got[0] != ln.Addr().String() {
		t.Fatalf("Describe(127.0.0.1) = %v", got)
	}
	all, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	port := fmt.Sprint(all.Addr().(*net.TCPAddr).Port)
	got := Describe(all)
	if !strings.Contains(strings.Join(got, " "), "127.0.0.1:"+port) {
		t.Fatalf("Describe(:0) = %v, want the loopback address among them", got)
	}
	lns, err := Listen(context.Background(), "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(lns)
	for _, l := range lns {
		if !l.Addr().(*net.TCPAddr).IP.IsLoopback() {
			t.Fatalf("localhost listened on %v", l.Addr())
		}
	}
}
