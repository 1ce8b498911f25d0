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
