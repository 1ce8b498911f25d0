package fakemodel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Request is one request an agent sent, as logged.
type Request struct {
	API        string // "anthropic", "openai", "gemini", "chat" (sup's model reader) or "unknown"
	Method     string
	Path       string
	Body       []byte
	UserText   string // newest user text, if any
	ToolResult string // newest tool result's text
	HasResult  bool   // the newest message carries a tool result
	Side       bool   // a side request (title, token count): no turn consumed
	Turn       Turn   // what the model did (zero for side requests)
	At         time.Time
}

// Server is the model stand-in.
type Server struct {
	URL string // http://127.0.0.1:PORT

	mu    sync.Mutex
	queue []Turn
	log   []Request
	srv   *http.Server
	ln    net.Listener
	wake  chan struct{} // closed and replaced whenever a request is logged
}

// Start starts a server on 127.0.0.1 and an ephemeral port.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, wake: make(chan struct{})}
	mux := http.NewServeMux()
	s.routes(mux)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln) // Serve returns http.ErrServerClosed after Close.
	return s, nil
}

// Close stops the server, ending hanging answers too.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return s.srv.Close()
}

// Queue appends turns that the next non-side requests get, in order, before
// any rule applies.
func (s *Server) Queue(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, turns...)
}

// Requests returns a copy of every request logged so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// WaitFor waits until some logged request satisfies match, or timeout.
func (s *Server) WaitFor(timeout time.Duration, match func(Request) bool) (Request, bool) {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		for _, r := range s.log {
			if match(r) {
				s.mu.Unlock()
				return r, true
			}
		}
		wake := s.wake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-deadline:
			return Request{}, false
		}
	}
}

// decide logs r and picks its turn: side requests get none, otherwise the
// queue first, then the rules.
func (s *Server) decide(r Request) Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !r.Side {
		if len(s.queue) > 0 {
			r.Turn, s.queue = s.queue[0], s.queue[1:]
		} else {
			r.Turn = Decide(r.UserText, r.ToolResult, r.HasResult)
		}
	}
	r.At = time.Now()
	s.log = append(s.log, r)
	close(s.wake)
	s.wake = make(chan struct{})
	return r.Turn
}
