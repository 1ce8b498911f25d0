//go:build linux

package ipc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestBadInput drives a live server with every kind of bad input, each on a
// fresh connection, and checks the error frame (code, echoed id, message)
// and whether the connection survives; a surviving one must still answer a
// valid hello.
func TestBadInput(t *testing.T) {
	ts := startServer(t, ServerConfig{FrameTimeout: 300 * time.Millisecond}, testHandlers)
	req := func(m map[string]any) []byte { return frameOf(mustMarshal(t, m)) }
	cases := []struct {
		name     string
		send     []byte
		halfShut bool // close our write side after sending
		code     Code // "" means: no error frame, only a close
		id       uint64
		msg      string // substring of the error message
		open     bool   // connection must stay usable
	}{
		{name: "zero length", send: header(0), code: CodeBadRequest, msg: "length 0"},
		{name: "too large", send: header(DefaultMaxFrame + 1), code: CodePayloadTooLarge, msg: "1048577"},
		{name: "huge", send: header(0xffffffff), code: CodePayloadTooLarge, msg: "4294967295"},
		{name: "truncated body", send: append(header(10), 1, 2, 3), halfShut: true},
		{name: "truncated header", send: []byte{0, 0}, halfShut: true},
		{name: "timeout mid-frame", send: append(header(10), 1, 2, 3), code: CodeBadRequest, msg: "incomplete"},
		{name: "garbage", send: frameOf([]byte{0xc1}), code: CodeBadRequest, msg: "request: malformed msgpack: byte 0xc1", open: true},
		{name: "text", send: frameOf([]byte("GET / HTTP/1.1\r\n")), code: CodeBadRequest, open: true},
		{name: "lying array length", send: frameOf([]byte{0xdd, 0xff, 0xff, 0xff, 0xff}), code: CodeBadRequest, msg: "declares", open: true},
		{name: "lying map length", send: frameOf([]byte{0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1}), code: CodeBadRequest, open: true},
		{name: "deep nesting", send: frameOf(append(bytesRepeat(0x91, 100), 0xc0)), code: CodeBadRequest, msg: "nest", open: true},
		{name: "array", send: frameOf(mustMarshal(t, []any{1, 2})), code: CodeBadRequest, msg: "must be a map, got an array", open: true},
		{name: "string", send: frameOf(mustMarshal(t, "hello")), code: CodeBadRequest, msg: "got a string", open: true},
		{name: "nil", send: frameOf([]byte{0xc0}), code: CodeBadRequest, msg: "got nil", open: true},
		{name: "trailing bytes", send: frameOf(append(mustMarshal(t, map[string]any{"v": 1, "id": 1, "method": "hello"}), 0xc0)), code: CodeBadRequest, msg: "trailing", open: true},
		{name: "integer keys", send: frameOf(mustMarshal(t, map[int]int{1: 2})), code: CodeBadRequest, msg: "keys must be strings", open: true},
		{name: "missing method", send: req(map[string]any{"v": 1, "id": 7}), code: CodeBadRequest, id: 7, msg: "no method", open: true},
		{name: "method not a string", send: req(map[string]any{"v": 1, "id": 7, "method": 5}), code: CodeBadRequest, id: 7, msg: "method must be a string", open: true},
		{name: "empty method", send: req(map[string]any{"v": 1, "id": 7, "method": ""}), code: CodeBadRequest, id: 7, open: true},
		{name: "id as string", send: req(map[string]any{"v": 1, "id": "7", "method": "hello"}), code: CodeBadRequest, msg: "id must be an unsigned integer, got a string", open: true},
		{name: "negative id", send: req(map[string]any{"v": 1, "id": -7, "method": "hello"}), code: CodeBadRequest, msg: "negative", open: true},
		{name: "float id", send: req(map[string]any{"v": 1, "id": 7.0, "method": "hello"}), code: CodeBadRequest, msg: "got a float", open: true},
		{name: "missing id", send: req(map[string]any{"v": 1, "method": "hello"}), code: CodeBadRequest, msg: "no id", open: true},
		{name: "missing v", send: req(map[string]any{"id": 7, "method": "hello"}), code: CodeBadRequest, id: 7, msg: "no v", open: true},
		{name: "v as string", send: req(map[string]any{"v": "1", "id": 7, "method": "hello"}), code: CodeBadRequest, id: 7, msg: "v must be an integer", open: true},
		{name: "v=2", send: req(map[string]any{"v": 2, "id": 7, "method": "hello"}), code: CodeUnsupportedVersion, id: 7, msg: "v=1", open: true},
		{name: "unknown top-level key", send: req(map[string]any{"v": 1, "id": 7, "method": "hello", "parms": map[string]any{}}), code: CodeBadRequest, id: 7, msg: `"parms"`, open: true},
		{name: "params not a map", send: req(map[string]any{"v": 1, "id": 7, "method": "echo", "params": []any{"x"}}), code: CodeBadRequest, id: 7, msg: "params must be a map", open: true},
		{name: "unknown method", send: req(map[string]any{"v": 1, "id": 7, "method": "nope"}), code: CodeUnknownMethod, id: 7, msg: `"nope"`, open: true},
		{name: "param of wrong type", send: req(map[string]any{"v": 1, "id": 7, "method": "echo", "params": map[string]any{"text": 5}}), code: CodeBadRequest, id: 7, msg: `"text": expected a string, got an integer`, open: true},
		{name: "negative unsigned param", send: req(map[string]any{"v": 1, "id": 7, "method": "echo", "params": map[string]any{"count": -1}}), code: CodeBadRequest, id: 7, msg: `"count": expected an unsigned integer, got a negative integer`, open: true},
		{name: "unknown param key", send: req(map[string]any{"v": 1, "id": 7, "method": "echo", "params": map[string]any{"txt": "x"}}), code: CodeBadRequest, id: 7, msg: `unknown key "txt" (known keys: count, text)`, open: true},
		{name: "hello with unknown param", send: req(map[string]any{"v": 1, "id": 7, "method": "hello", "params": map[string]any{"x": 1}}), code: CodeBadRequest, id: 7, msg: `unknown key "x"`, open: true},
		{name: "handler error", send: req(map[string]any{"v": 1, "id": 7, "method": "fail"}), code: CodeInternal, id: 7, msg: "disk on fire", open: true},
		{name: "handler protocol error", send: req(map[string]any{"v": 1, "id": 7, "method": "busy"}), code: CodeOperatorBusy, id: 7, open: true},
		{name: "handler panic", send: req(map[string]any{"v": 1, "id": 7, "method": "panic"}), code: CodeInternal, id: 7, msg: "boom", open: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, ts.path)
			writeAll(t, c, tc.send)
			if tc.halfShut {
				c.CloseWrite()
			}
			if tc.code != "" {
				r := readResponse(t, c)
				if r.OK || r.Error == nil {
					t.Fatalf("got %+v, want error %s", r, tc.code)
				}
				if r.Error.Code != tc.code || r.ID != tc.id {
					t.Fatalf("got id %d %v, want id %d code %s", r.ID, r.Error, tc.id, tc.code)
				}
				if !strings.Contains(r.Error.Message, tc.msg) {
					t.Fatalf("message %q does not contain %q", r.Error.Message, tc.msg)
				}
			}
			if tc.open {
				helloRaw(t, c, 99)
				helloRaw(t, c, 100)
			} else {
				expectClosed(t, c, 2*time.Second)
			}
		})
	}
	// After all that, the server is fine.
	c := dialClient(t, ts.path)
	var st map[string]any
	if err := c.Call(context.Background(), "state", nil, &st); err != nil || st["lifecycle"] != "running" {
		t.Fatalf("state after bad input: %v %v", st, err)
	}
	if !strings.Contains(ts.logs.String(), "handler panicked") {
		t.Fatalf("the panic was not logged:\n%s", ts.logs)
	}
}

func bytesRepeat(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func TestHello(t *testing.T) {
	ts := startServer(t, ServerConfig{Version: "1.2.3", Events: []string{"state", "exit", "state"}}, testHandlers)
	c := dialClient(t, ts.path)
	var h HelloResult
	if err := c.Call(context.Background(), MethodHello, HelloParams{Client: "test/1"}, &h); err != nil {
		t.Fatal(err)
	}
	want := "busy echo fail hello panic state subscribe"
	if got := strings.Join(h.Methods, " "); got != want {
		t.Fatalf("methods %q, want %q", got, want)
	}
	if h.Server != "1.2.3" || h.Protocol != 1 || strings.Join(h.Events, " ") != "exit state" {
		t.Fatalf("hello %+v", h)
	}
}

func TestManyRequestsInOrder(t *testing.T) {
	ts := startServer(t, ServerConfig{}, testHandlers)
	c := dialRaw(t, ts.path)
	// Pipeline 200 requests without reading, then read all answers.
	var batch []byte
	for i := 1; i <= 200; i++ {
		batch = append(batch, frameOf(mustMarshal(t, map[string]any{
			"v": 1, "id": i, "method": "echo", "params": map[string]any{"text": fmt.Sprint(i)},
		}))...)
	}
	writeAll(t, c, batch)
	for i := 1; i <= 200; i++ {
		r := readResponse(t, c)
		var s string
		if err := unmarshal(r.Result, &s); err != nil || r.ID != uint64(i) || s != fmt.Sprint(i) {
			t.Fatalf("response %d: id %d result %q err %v", i, r.ID, s, err)
		}
	}
	// And through the client, with concurrent callers sharing it.
	cl := dialClient(t, ts.path)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s string
			want := fmt.Sprint("call-", i)
			if err := cl.Call(context.Background(), "echo", map[string]any{"text": want}, &s); err != nil || s != want {
				errs <- fmt.Errorf("got %q, %v; want %q", s, err, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestHandlerPanicKeepsServerAlive(t *testing.T) {
	ts := startServer(t, ServerConfig{}, testHandlers)
	c := dialClient(t, ts.path)
	for i := 0; i < 3; i++ {
		err := c.Call(context.Background(), "panic", nil, nil)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInternal {
			t.Fatalf("panic call: %v, want INTERNAL", err)
		}
	}
	if err := c.Call(context.Background(), "state", nil, nil); err != nil {
		t.Fatalf("state after panics on the same connection: %v", err)
	}
}

func TestProtocolErrorsThroughClient(t *testing.T) {
	ts := startServer(t, ServerConfig{}, testHandlers)
	c := dialClient(t, ts.path)
	err := c.Call(context.Background(), "nope", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeUnknownMethod {
		t.Fatalf("unknown method: %v", err)
	}
	err = c.Call(context.Background(), "echo", map[string]any{"text": 1}, nil)
	if !errors.As(err, &e) || e.Code != CodeBadRequest {
		t.Fatalf("bad params: %v", err)
	}
	// A protocol error leaves the client usable.
	var s string
	if err := c.Call(context.Background(), "echo", map[string]any{"text": "ok"}, &s); err != nil || s != "ok" {
		t.Fatalf("after errors: %q %v", s, err)
	}
}

// TestSlowClientDoesNotBlockOthers: a client that sends half a header and
// stops neither delays other clients nor survives FrameTimeout.
func TestSlowClientDoesNotBlockOthers(t *testing.T) {
	const frameTimeout = 300 * time.Millisecond
	ts := startServer(t, ServerConfig{FrameTimeout: frameTimeout}, testHandlers)
	slow := dialRaw(t, ts.path)
	writeAll(t, slow, []byte{0, 0})
	start := time.Now()
	c := dialClient(t, ts.path)
	for i := 0; i < 20; i++ {
		if err := c.Call(context.Background(), "state", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > frameTimeout/2 {
		t.Fatalf("20 calls took %v beside a stalled client", d)
	}
	r := readResponse(t, slow)
	if r.Error == nil || r.Error.Code != CodeBadRequest || r.ID != 0 {
		t.Fatalf("stalled client got %+v", r)
	}
	expectClosed(t, slow, time.Second)
	if d := time.Since(start); d < frameTimeout-50*time.Millisecond || d > 3*frameTimeout {
		t.Fatalf("stalled client closed after %v, want about %v", d, frameTimeout)
	}
}

func TestIdleTimeout(t *testing.T) {
	ts := startServer(t, ServerConfig{IdleTimeout: 200 * time.Millisecond}, testHandlers)
	c := dialRaw(t, ts.path)
	helloRaw(t, c, 1)
	start := time.Now()
	expectClosed(t, c, 2*time.Second)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("idle connection closed after %v", d)
	}
}

func TestMaxConns(t *testing.T) {
	ts := startServer(t, ServerConfig{MaxConns: 2}, testHandlers)
	a, b := dialRaw(t, ts.path), dialRaw(t, ts.path)
	helloRaw(t, a, 1) // admitted
	helloRaw(t, b, 1)
	third := dialRaw(t, ts.path)
	r := readResponse(t, third)
	if r.Error == nil || r.Error.Code != CodeTooManyClients || r.ID != 0 {
		t.Fatalf("third connection got %+v", r)
	}
	expectClosed(t, third, time.Second)

	// The client reports the refusal as an *Error.
	cl, err := Dial(ts.path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	err = cl.Call(context.Background(), "state", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeTooManyClients {
		t.Fatalf("client past MaxConns: %v", err)
	}

	// Closing one frees its slot.
	a.Close()
	deadline := time.Now().Add(2 * time.Second)
	for {
		c := dialRaw(t, ts.path)
		c.SetDeadline(time.Now().Add(time.Second))
		// Until the slot frees the server refuses and closes at once, so
		// the write may meet a closed socket (EPIPE): try again then.
		_, werr := c.Write(frameOf(mustMarshal(t, map[string]any{"v": 1, "id": 5, "method": "hello"})))
		if werr == nil {
			if r := readResponse(t, c); r.OK {
				break
			}
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("slot never freed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestResponseTooLarge(t *testing.T) {
	ts := startServer(t, ServerConfig{MaxFrame: 1000}, func(s *Server) {
		s.Handle("big", func(ctx context.Context, req *Request) (any, error) {
			return strings.Repeat("x", 2000), nil
		})
	})
	c := dialClient(t, ts.path)
	err := c.Call(context.Background(), "big", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodePayloadTooLarge {
		t.Fatalf("oversized result: %v", err)
	}
	if err := c.Call(context.Background(), "hello", nil, nil); err != nil {
		t.Fatalf("after an oversized result: %v", err)
	}
}

func TestCloseCancelsHandlersAndServeReturns(t *testing.T) {
	started := make(chan struct{})
	path := shortDir(t) + "/c.sock"
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(ServerConfig{})
	s.Handle("wait", func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	c := dialClient(t, path)
	called := make(chan error, 1)
	go func() { called <- c.Call(context.Background(), "wait", nil, nil) }()
	<-started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if err := <-called; err == nil {
		t.Fatal("call survived Close")
	}
	if _, err := net.Dial("unix", path); err == nil {
		t.Fatal("socket still accepts after Close")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestPeerInContext(t *testing.T) {
	got := make(chan Peer, 1)
	ts := startServer(t, ServerConfig{}, func(s *Server) {
		s.Handle("who", func(ctx context.Context, req *Request) (any, error) {
			p, _ := PeerFromContext(ctx)
			got <- p
			return nil, nil
		})
	})
	c := dialClient(t, ts.path)
	if err := c.Call(context.Background(), "who", nil, nil); err != nil {
		t.Fatal(err)
	}
	p := <-got
	if p.PID != osGetpid() || p.UID != osGeteuid() {
		t.Fatalf("peer %+v", p)
	}
}

func TestClientContext(t *testing.T) {
	release := make(chan struct{})
	ts := startServer(t, ServerConfig{}, func(s *Server) {
		s.Handle("block", func(ctx context.Context, req *Request) (any, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		})
	})
	defer close(release)
	c := dialClient(t, ts.path)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Call(ctx, "block", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second { // a loaded machine, not a blocked call
		t.Fatalf("deadline honoured after %v", d)
	}
	// The client is unusable now, and says why.
	if err := c.Call(context.Background(), "hello", nil, nil); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call after a timed-out call: %v", err)
	}
	// Cancellation without a deadline interrupts too.
	c2 := dialClient(t, ts.path)
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel2)
	if err := c2.Call(ctx2, "block", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want Canceled", err)
	}
	// An already-done context sends nothing.
	c3 := dialClient(t, ts.path)
	if err := c3.Call(ctx2, "hello", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want Canceled", err)
	}
	if err := c3.Call(context.Background(), "hello", nil, nil); err != nil {
		t.Fatalf("client after a call refused for a done context: %v", err)
	}
}

func TestHandleMisuse(t *testing.T) {
	s := NewServer(ServerConfig{})
	defer s.Close()
	s.Handle("x", func(context.Context, *Request) (any, error) { return nil, nil })
	for _, m := range []string{"", "hello", "subscribe", "x"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Handle(%q) did not panic", m)
				}
			}()
			s.Handle(m, func(context.Context, *Request) (any, error) { return nil, nil })
		}()
	}
}

func TestOnClient(t *testing.T) {
	notes := make(chan ClientEvent, 10)
	ts := startServer(t, ServerConfig{MaxConns: 1, OnClient: func(ev ClientEvent) { notes <- ev }}, testHandlers)
	next := func() ClientEvent {
		t.Helper()
		select {
		case n := <-notes:
			return n
		case <-time.After(2 * time.Second):
			t.Fatal("no OnClient call")
		}
		return nil
	}
	c := dialRaw(t, ts.path)
	helloRaw(t, c, 1)
	want := ClientConnect{Phase: PhaseConnect, PeerPID: osGetpid(), PeerUID: osGeteuid()}
	if n := next(); n != want {
		t.Fatalf("connect: %+v, want %+v", n, want)
	}
	extra := dialRaw(t, ts.path)
	readResponse(t, extra)
	if n := next(); n != (ClientRefused{Phase: PhaseRefused, PeerPID: osGetpid(), PeerUID: osGeteuid(), Code: CodeTooManyClients}) {
		t.Fatalf("refused: %+v", n)
	}
	helloRaw(t, c, 2)
	c.Close()
	if n := next(); n != (ClientDisconnect{Phase: PhaseDisconnect, PeerPID: osGetpid(), PeerUID: osGeteuid(), Requests: 2}) {
		t.Fatalf("disconnect: %+v", n)
	}
}

// fakeClock is a settable clock for ServerConfig.Now.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestFullSlotsEvictOldestIdle: with every slot taken, a new connection
// closes the one idle the longest and is served; connections idle for less
// than EvictIdleAfter, with a request in flight, or subscribed are never
// evicted, and with only those the newcomer gets TOO_MANY_CLIENTS.
func TestFullSlotsEvictOldestIdle(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	ts := startServer(t, ServerConfig{MaxConns: 4, MaxWaitingPerPeer: 100, Now: clock.Now, Events: []string{"e"}}, func(s *Server) {
		testHandlers(s)
		s.Handle("slow", func(ctx context.Context, req *Request) (any, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "done", nil
		})
	})
	oldest, newer := dialRaw(t, ts.path), dialRaw(t, ts.path)
	helloRaw(t, oldest, 1)
	waitIdle(t, ts, 1)
	clock.Advance(500 * time.Millisecond) // idle, but not for EvictIdleAfter (1 s)
	helloRaw(t, newer, 1)
	waitIdle(t, ts, 2)
	busy := dialRaw(t, ts.path)
	writeAll(t, busy, frameOf(mustMarshal(t, map[string]any{"v": 1, "id": 7, "method": "slow"})))
	sub := dialClient(t, ts.path)
	if _, err := sub.Subscribe(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitUntil(t, 20*time.Second, "the slow request to be in its handler", func() bool { return ts.inflight.Load() == 1 })

	// Nothing idle long enough yet: refused.
	fresh := dialRaw(t, ts.path)
	if r := readResponse(t, fresh); r.Error == nil || r.Error.Code != CodeTooManyClients {
		t.Fatalf("newcomer with no evictable connection: %+v, want TOO_MANY_CLIENTS", r)
	}

	// Ten minutes on, oldest goes first, then newer; never busy or sub.
	clock.Advance(10 * time.Minute)
	for _, victim := range []net.Conn{oldest, newer} {
		c := dialRaw(t, ts.path)
		helloRaw(t, c, 2)
		expectClosed(t, victim, 2*time.Second)
		clock.Advance(10 * time.Minute) // c is idle too from now on, but newer than the next victim
	}
	once.Do(func() { close(release) })
	if r := readResponse(t, busy); !r.OK || r.ID != 7 {
		t.Fatalf("the busy connection's request: %+v, want its answer", r)
	}
	if !strings.Contains(ts.logs.String(), "closed the oldest idle connection") {
		t.Fatalf("eviction not logged:\n%s", ts.logs.String())
	}
}

// TestDrippingFramesEvicted: connections that send a frame's first bytes
// and then drip the rest hold no slot against a newcomer once their frame
// has been on its way for EvictIdleAfter: a hook still gets in.
func TestDrippingFramesEvicted(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	// A frame may take a minute: only eviction can free the slots here.
	ts := startServer(t, ServerConfig{MaxConns: 4, Now: clock.Now, FrameTimeout: time.Minute}, testHandlers)
	var drips []net.Conn
	for range 4 {
		c := dialRaw(t, ts.path)
		// A hello, and in the same write the start of a 1000-byte frame
		// (its length and one byte): once the hello is answered the
		// server goes on to the dripping frame.
		writeAll(t, c, append(frameOf(mustMarshal(t, map[string]any{"v": 1, "id": 1, "method": "hello"})), 0, 0, 3, 232, 0x85))
		if r := readResponse(t, c); !r.OK {
			t.Fatalf("hello: %+v", r)
		}
		drips = append(drips, c)
	}
	time.Sleep(100 * time.Millisecond) // the server reads on into the frames (a sync, not a bound)
	// The server marks each frame's start when its first byte arrives,
	// on its own time: advance the clock until a newcomer gets in.
	testutil.WaitUntil(t, 20*time.Second, "a newcomer admitted over the dripping frames", func() bool {
		clock.Advance(2 * time.Second)
		c := dialRaw(t, ts.path)
		writeAll(t, c, frameOf(mustMarshal(t, map[string]any{"v": 1, "id": 2, "method": "hello"})))
		r := readResponse(t, c)
		return r.OK && r.ID == 2
	})
	closed := 0
	for _, d := range drips {
		d.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := d.Read(make([]byte, 1)); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) || err == nil {
			closed++
		}
	}
	if closed != 1 {
		t.Fatalf("%d dripping connections closed for the newcomer, want 1", closed)
	}
}

// TestSubscriberSlotsCapped: subscriptions may take all but an eighth of
// the slots; one more is refused with TOO_MANY_CLIENTS on its request, and
// that connection still answers requests.
func TestSubscriberSlotsCapped(t *testing.T) {
	ts := startServer(t, ServerConfig{MaxConns: 8, MaxWaitingPerPeer: 100, Events: []string{"e"}}, testHandlers)
	for range 7 {
		if _, err := dialClient(t, ts.path).Subscribe(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	c := dialClient(t, ts.path)
	_, err := c.Subscribe(context.Background(), nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeTooManyClients || !strings.Contains(e.Message, "still takes requests") {
		t.Fatalf("8th subscriber of 8 slots: %v, want TOO_MANY_CLIENTS", err)
	}
	if err := c.Call(context.Background(), "state", nil, nil); err != nil {
		t.Fatalf("state after the refused subscribe: %v", err)
	}
}

// TestHogEvictedForOthers: one process holding every slot with fresh
// connections (a client looping over connect) cannot shut out another
// process: the newcomer evicts the hog's longest idle connection at once,
// while a newcomer of the hog itself is still refused.
func TestHogEvictedForOthers(t *testing.T) {
	peer := buildPeer(t)
	clock := &fakeClock{now: time.Unix(1_000_000, 0)} // 16 ms in all: nothing idle for 1 s
	ts := startServer(t, ServerConfig{MaxConns: 16, Now: clock.Now}, testHandlers)
	var held []net.Conn
	for i := range 16 {
		c := dialRaw(t, ts.path)
		helloRaw(t, c, 1)
		held = append(held, c)
		waitIdle(t, ts, i+1)
		clock.Advance(time.Millisecond)
	}
	out, err := exec.Command(peer, ts.path).CombinedOutput()
	if got := strings.TrimSpace(string(out)); err != nil || got != "ok" {
		t.Fatalf("another process behind a hog of 16 fresh connections: %q %v, want ok", got, err)
	}
	expectClosed(t, held[0], 2*time.Second) // the hog's longest idle one
	// The other process is gone: the hog takes its slot back, and then
	// its next newcomer has nothing it may evict.
	testutil.WaitUntil(t, 20*time.Second, "the other process's slot to be free", func() bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return ts.admitted == 15
	})
	helloRaw(t, dialRaw(t, ts.path), 1)
	mine := dialRaw(t, ts.path)
	if r := readResponse(t, mine); r.Error == nil || r.Error.Code != CodeTooManyClients {
		t.Fatalf("the hog's own newcomer: %+v, want TOO_MANY_CLIENTS", r)
	}
}
