//go:build linux

package ipc

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestClassifyOncePerConnection: ServerConfig.Classify sees the kernel's
// peer (this process), runs once per connection, and its verdict reaches
// every handler; a Classify error refuses the connection with
// PERMISSION_DENIED before any request is read.
func TestClassifyOncePerConnection(t *testing.T) {
	calls := 0
	srv := startServer(t, ServerConfig{Classify: func(p Peer) (Caller, error) {
		calls++
		if p.PID != os.Getpid() {
			t.Errorf("Classify got pid %d, want ours, %d", p.PID, os.Getpid())
		}
		if alive, known := p.StillThere(); known && !alive {
			t.Errorf("our own pidfd says we exited")
		}
		return Caller{Kind: CallerAgent, PID: p.PID, Session: &CallerSession{Name: "sb", ID: "b1"}}, nil
	}}, func(s *Server) {
		s.Handle("who", func(ctx context.Context, _ *Request) (any, error) {
			c, ok := CallerFromContext(ctx)
			if !ok {
				return nil, errors.New("no caller in the context")
			}
			return c.Label(), nil
		})
	})
	c := dialClient(t, srv.path)
	for range 3 {
		var got string
		if err := c.Call(context.Background(), "who", nil, &got); err != nil || got != `agent "sb" (session b1)` {
			t.Fatalf("who = %q, %v", got, err)
		}
	}
	if calls != 1 {
		t.Fatalf("Classify ran %d times for one connection, want 1", calls)
	}

	refusing := startServer(t, ServerConfig{Classify: func(Peer) (Caller, error) {
		return Caller{}, errors.New("ancestor 40: no such process")
	}}, nil)
	rc := dialRaw(t, refusing.path)
	r := readResponse(t, rc)
	if r.Error == nil || r.Error.Code != CodePermissionDenied || !strings.Contains(r.Error.Message, "cannot tell who is calling") {
		t.Fatalf("refusal %+v, want PERMISSION_DENIED naming the cause", r.Error)
	}
	expectClosed(t, rc, 2*time.Second)
}

func TestCallerWithoutClassify(t *testing.T) {
	c, ok := CallerFromContext(context.Background())
	if ok || !c.IsOperator() {
		t.Fatalf("no Classify: %+v %v, want the operator, ok false", c, ok)
	}
	if l := (Caller{Kind: CallerAgent}).Label(); l != "an agent of an unidentified session" {
		t.Fatalf("label %q", l)
	}
}

// TestHelloVia: an operator's hello with via makes the connection's later
// calls carry Caller.Via (the audit's "the operator (web, addr)"); an
// agent's is refused NOT_ALLOWED and its calls stay the agent's; a bad
// kind or client is BAD_REQUEST naming the valid choices.
func TestHelloVia(t *testing.T) {
	serve := func(kind string) *testServer {
		return startServer(t, ServerConfig{Classify: func(p Peer) (Caller, error) {
			if kind == CallerAgent {
				return Caller{Kind: CallerAgent, PID: p.PID, Session: &CallerSession{Name: "sb", ID: "b1"}}, nil
			}
			return Caller{Kind: CallerOperator, PID: p.PID}, nil
		}}, func(s *Server) {
			s.Handle("who", func(ctx context.Context, _ *Request) (any, error) {
				c, _ := CallerFromContext(ctx)
				return c.Label(), nil
			})
		})
	}
	who := func(c *Client) string {
		var got string
		if err := c.Call(context.Background(), "who", nil, &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	web := &Via{Kind: ViaWeb, Client: "127.0.0.1:5555"}

	op := dialClient(t, serve(CallerOperator).path)
	if got := who(op); got != "the operator" {
		t.Fatalf("before hello: %q", got)
	}
	if err := op.Call(context.Background(), MethodHello, HelloParams{Via: web}, nil); err != nil {
		t.Fatal(err)
	}
	if got := who(op); got != "the operator (web, 127.0.0.1:5555)" {
		t.Fatalf("after hello via: %q", got)
	}

	ag := dialClient(t, serve(CallerAgent).path)
	err := ag.Call(context.Background(), MethodHello, HelloParams{Via: web}, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeNotAllowed || !strings.Contains(e.Message, `agent "sb"`) {
		t.Fatalf("agent's hello via: %v, want NOT_ALLOWED naming the agent", err)
	}
	if got := who(ag); got != `agent "sb" (session b1)` {
		t.Fatalf("agent after a refused via: %q", got)
	}

	for _, bad := range []Via{{Kind: "tty", Client: "127.0.0.1:1"}, {Kind: ViaWeb, Client: "nowhere"}, {Kind: ViaWeb, Client: "a:1\x1b[2J"}} {
		c := dialClient(t, serve(CallerOperator).path)
		err := c.Call(context.Background(), MethodHello, HelloParams{Via: &bad}, nil)
		if !errors.As(err, &e) || e.Code != CodeBadRequest || !strings.Contains(e.Message, "valid") && !strings.Contains(e.Message, "want host:port") {
			t.Fatalf("hello via %+v: %v, want BAD_REQUEST naming the choices", bad, err)
		}
		if got := who(c); got != "the operator" {
			t.Fatalf("after a bad via: %q", got)
		}
	}
}
