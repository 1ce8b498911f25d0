package metricserve

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Shared makes bodies with Collect for any number of concurrent callers:
// one collection at a time, whose result (body or error) answers every
// caller until TTL has passed since it finished.
type Shared struct {
	Collect func(context.Context) ([]byte, error)
	TTL     time.Duration    // how long a result is reused
	Timeout time.Duration    // bounds one collection; 0: none
	Now     func() time.Time // the clock of TTL; time.Now when nil

	mu     sync.Mutex
	flight *flight
	last   *flight // the last finished collection
	at     time.Time
	runs   atomic.Int64
}

// flight is one collection; done is closed once body and err are set.
type flight struct {
	done chan struct{}
	body []byte
	err  error
}

// Get returns a fresh enough result, joining the collection in flight or
// starting one. ctx bounds only this caller's wait.
func (s *Shared) Get(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	if s.last != nil && s.now().Sub(s.at) < s.TTL {
		f := s.last
		s.mu.Unlock()
		return f.body, f.err
	}
	f := s.flight
	if f == nil {
		f = &flight{done: make(chan struct{})}
		s.flight = f
		s.runs.Add(1)
		go s.run(f)
	}
	s.mu.Unlock()
	select {
	case <-f.done:
		return f.body, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Collections is how many collections have started.
func (s *Shared) Collections() int64 { return s.runs.Load() }

func (s *Shared) run(f *flight) {
	ctx := context.Background()
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	f.body, f.err = s.Collect(ctx)
	s.mu.Lock()
	s.last, s.at, s.flight = f, s.now(), nil
	s.mu.Unlock()
	close(f.done)
}

func (s *Shared) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
