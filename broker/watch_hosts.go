//go:build linux

package broker

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"
)

// watchHostRelist is how often WatchHost lists a host's supervisors even
// without an event: a session that starts there says nothing until its
// first event, and the relay follows it only from its next rescan.
const watchHostRelist = 3 * time.Second

// WatchHost is Watch for another host, through its relay: the host's
// sessions as Changes (Host set; Socket is the path on that host), a
// fresh relay.list after each of their events (coalesced) and every few
// seconds, HostUp once it answers and HostDown (with the reason) when it
// does not or its relay dies. It retries with backoff like FollowHost,
// resuming each supervisor's events from the last seq seen, until ctx
// ends. Each call, connection included, has deadline. A remote row's
// Methods are unknown (nil): relay.list carries no hello.
func (s SSH) WatchHost(ctx context.Context, h Host, deadline time.Duration, emit func(Change)) {
	last := map[string]uint64{}
	shown := map[string]bool{} // the sockets of h last emitted
	retryWithBackoff(ctx, "watching", func() error { return s.watchHostOnce(ctx, h, deadline, last, shown, emit) }, func(err error) {
		for sock := range shown {
			emit(Change{Kind: SessionGone, Session: Listing{Host: h.Name, Socket: sock}})
		}
		clear(shown)
		emit(Change{Kind: HostDown, Host: h.Name, Err: err})
	})
}

// retryWithBackoff runs run until ctx ends, waiting between runs twice as
// long each time (from followBackoffMin to followBackoffMax; a run that
// lasted over a minute starts the count again) and telling report why
// ("…; VERB again in 1s").
func retryWithBackoff(ctx context.Context, verb string, run func() error, report func(error)) {
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		start := time.Now()
		err := run()
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > time.Minute {
			backoff = 0 // it ran well: this is a new failure, not a flapping one
		}
		backoff = min(max(2*backoff, followBackoffMin), followBackoffMax)
		report(fmt.Errorf("%w; %s again in %s", err, verb, backoff))
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
	}
}

// watchHostOnce runs one relay pair (one streaming events, one answering
// lists) until either fails.
func (s SSH) watchHostOnce(ctx context.Context, h Host, deadline time.Duration, last map[string]uint64, shown map[string]bool, emit func(Change)) error {
	lister, err := s.DialHost(ctx, h, "")
	if err != nil {
		return err
	}
	defer lister.Close()
	list := func() error {
		cctx, cancel := context.WithTimeout(ctx, deadline)
		defer cancel()
		var res RelayListResult
		if err := lister.Client.Call(cctx, MethodRelayList, RelayListParams{TimeoutMS: time.Second.Milliseconds()}, &res); err != nil {
			if cctx.Err() != nil && ctx.Err() == nil {
				return &HostError{Host: h.Name, Status: HostUnreachable, Reason: fmt.Sprintf("no answer within %s", deadline)}
			}
			return lister.Explain(err)
		}
		seen := map[string]bool{}
		for _, rs := range res.Sessions {
			seen[rs.Socket] = true
			emit(Change{Kind: SessionUpdated, Session: Listing{Host: h.Name, Socket: rs.Socket, State: fromRemote(rs.State)}})
		}
		for sock := range shown {
			if !seen[sock] {
				emit(Change{Kind: SessionGone, Session: Listing{Host: h.Name, Socket: sock}})
			}
		}
		clear(shown)
		maps.Copy(shown, seen)
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, deadline)
	_, err = checkRelay(cctx, lister, MethodRelayList, MethodRelayWatch)
	late := cctx.Err() != nil && ctx.Err() == nil
	cancel()
	if late {
		return &HostError{Host: h.Name, Status: HostUnreachable, Reason: fmt.Sprintf("no answer within %s", deadline)}
	}
	if err != nil {
		return err
	}
	if err := list(); err != nil {
		return err
	}
	emit(Change{Kind: HostUp, Host: h.Name})

	events, err := s.DialHost(ctx, h, "")
	if err != nil {
		return err
	}
	var (
		mu   sync.Mutex // guards last against the stream's goroutine
		wg   sync.WaitGroup
		dirt = make(chan struct{}, 1)
		dead = make(chan error, 1)
	)
	// The stream's goroutine ends before last is read again (the next
	// run's since): close the relay, then wait.
	defer wg.Wait()
	defer events.Close()
	cctx, cancel = context.WithTimeout(ctx, deadline)
	defer cancel()
	mu.Lock()
	since := maps.Clone(last)
	mu.Unlock()
	if err := events.Client.Call(cctx, MethodRelayWatch, RelayWatchParams{Since: since}, nil); err != nil {
		return events.Explain(err)
	}
	sub, _, err := events.Client.SubscribeSince(cctx, nil, 0)
	if err != nil {
		return events.Explain(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			ev, err := sub.Next()
			if err != nil {
				dead <- events.Explain(fmt.Errorf("relay stream: %w", err))
				return
			}
			se, ok := relayEvent(h.Name, ev)
			if !ok {
				continue
			}
			mu.Lock()
			if se.Event == gapEvent {
				delete(last, se.Session)
			} else if se.Seq <= last[se.Session] {
				mu.Unlock()
				continue // replayed and already seen
			} else {
				last[se.Session] = se.Seq
			}
			mu.Unlock()
			select {
			case dirt <- struct{}{}:
			default: // a list is due already: it will show this too
			}
		}
	}()
	relist := time.NewTicker(watchHostRelist)
	defer relist.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-dead:
			return err
		case <-dirt:
		case <-relist.C:
		}
		if err := list(); err != nil {
			return err
		}
	}
}
