//go:build linux

package ipc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// shortDir returns a fresh directory whose path is short enough for
// sun_path (t.TempDir's can exceed 108 bytes with long test names).
func shortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ipc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

type testServer struct {
	*Server
	path string
	logs *testutil.Buffer
}

// startServer listens on a fresh socket and serves it until the test ends.
func startServer(t testing.TB, cfg ServerConfig, setup func(*Server)) *testServer {
	t.Helper()
	path := filepath.Join(shortDir(t), "s.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testutil.Buffer{}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s := NewServer(cfg)
	if setup != nil {
		setup(s)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve returned %v after Close, want nil", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("Serve did not return after Close")
		}
	})
	return &testServer{Server: s, path: path, logs: logs}
}

// testHandlers registers the handlers the server tests use.
func testHandlers(s *Server) {
	s.Handle("state", func(ctx context.Context, req *Request) (any, error) {
		return map[string]any{"lifecycle": "running", "n": 1}, nil
	})
	s.Handle("echo", func(ctx context.Context, req *Request) (any, error) {
		var p struct {
			Text  string `msgpack:"text"`
			Count uint   `msgpack:"count"`
		}
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		return p.Text, nil
	})
	s.Handle("panic", func(ctx context.Context, req *Request) (any, error) {
		panic("boom")
	})
	s.Handle("fail", func(ctx context.Context, req *Request) (any, error) {
		return nil, errors.New("disk on fire")
	})
	s.Handle("busy", func(ctx context.Context, req *Request) (any, error) {
		return nil, Errorf(CodeOperatorBusy, "the operator is typing")
	})
}

func dialRaw(t testing.TB, path string) *net.UnixConn {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.UnixConn)
}

func dialClient(t testing.TB, path string) *Client {
	t.Helper()
	c, err := Dial(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// frameOf prefixes body with its length.
func frameOf(body []byte) []byte {
	f := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	return append(f, body...)
}

func writeAll(t testing.TB, c net.Conn, b []byte) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
}

// readResponse reads one response frame from a raw connection.
func readResponse(t testing.TB, c net.Conn) Response {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	body, err := ReadFrame(c, 0)
	if err != nil {
		t.Fatalf("reading a response: %v", err)
	}
	var r Response
	if err := unmarshal(body, &r); err != nil {
		t.Fatalf("decoding response %x: %v", body, err)
	}
	return r
}

// expectClosed asserts that the server closes c within d.
func expectClosed(t testing.TB, c net.Conn, d time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 64)
	for {
		n, err := c.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("connection still open after %v", d)
			}
			return // EOF or ECONNRESET: closed
		}
		if n > 0 {
			t.Fatalf("unexpected %d more bytes (%x) before close", n, buf[:n])
		}
	}
}

// helloRaw sends a valid hello with id on a raw connection and checks the
// answer.
func helloRaw(t testing.TB, c net.Conn, id uint64) {
	t.Helper()
	writeAll(t, c, frameOf(mustMarshal(t, map[string]any{"v": 1, "id": id, "method": "hello"})))
	r := readResponse(t, c)
	if !r.OK || r.ID != id {
		t.Fatalf("hello: got %+v (error %v), want ok with id %d", r, r.Error, id)
	}
}

var _ = io.EOF

// waitIdle waits until the server has marked n admitted connections idle
// (waiting for their next request). A test on a fake clock calls it before
// advancing the clock: the server marks a connection idle after it has
// sent the reply the client already read, so without the wait a loaded
// machine dates the idleness after the advance and the eviction order
// the test expects is a race.
func waitIdle(t testing.TB, ts *testServer, n int) {
	t.Helper()
	testutil.WaitUntil(t, 10*time.Second, fmt.Sprintf("%d idle connections", n), func() bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		idle := 0
		for c := range ts.conns {
			if c.admitted && !c.idleSince.IsZero() {
				idle++
			}
		}
		return idle >= n
	})
}
