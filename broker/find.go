//go:build linux

package broker

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"syscall"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
)

// Find resolves the TARGET a user names (FindTarget) across hosts without
// dialling a local supervisor it does not need (specs/broker.md, "Finding
// one session"): this host's sessions come from the socket names (a
// session id is its socket's name) and the queue files (the cached facts
// of each: name, document, …), so acting on one session dials one socket.
// Only a socket without readable facts is asked for its state, and a
// target that matches nothing is looked for again by asking every socket:
// the facts are a cache, and the miss may be a fact it does not hold yet
// (an older supervisor's file has no document); so is an ambiguous one.
// Find removes nothing: a
// stale socket is left to the listings (Discover).
//
// With hosts configured, host:TARGET looks on that host only and an
// unqualified TARGET on every host, each remote host through its relay's
// relay.list. When none matches, the error says which sockets or hosts did
// not answer: the session meant may be among them.
func (f *Fleet) Find(ctx context.Context, target, wd string) (Listing, error) {
	return f.find(ctx, target, wd, true)
}

// find is Find; cached false asks every local socket at once (Open's
// second look, after the cache named the wrong session).
func (f *Fleet) find(ctx context.Context, target, wd string, cached bool) (Listing, error) {
	remote, local := f.Hosts, true
	if h, rest, ok := f.splitHostTarget(target); ok {
		target = rest
		remote, local, _ = SelectHosts(f.Hosts, h)
	}
	var (
		results []HostResult
		wg      sync.WaitGroup
	)
	if len(remote) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results = f.fanout(remote).DiscoverHosts(ctx, false)
		}()
	}
	var (
		mine    []Listing
		errs    []SocketError
		findErr error
	)
	switch {
	case local && cached:
		mine, errs, cached, findErr = localSessions(ctx, f.RuntimeDir)
	case local:
		var res Result
		res, findErr = discover(ctx, f.RuntimeDir, DialTimeout, nil, false, false)
		mine, errs = res.Sessions, res.Errors
	}
	wg.Wait()
	if findErr != nil {
		return Listing{}, findErr
	}
	s, err := FindTarget(append(mine, AllSessions(results)...), target, wd)
	if (errors.Is(err, ErrNoMatch) || errors.Is(err, ErrAmbiguous)) && cached {
		// The cache may lack what names it, or hold a name no longer
		// true: ask the sockets themselves.
		res, derr := discover(ctx, f.RuntimeDir, DialTimeout, nil, false, false)
		if derr != nil {
			return Listing{}, derr
		}
		mine, errs = res.Sessions, res.Errors
		s, err = FindTarget(append(mine, AllSessions(results)...), target, wd)
	}
	if err != nil {
		for _, e := range errs {
			err = fmt.Errorf("%w\n  (%s did not answer: %v)", err, e.Socket, e.Err)
		}
		for _, r := range results {
			if r.Err != nil {
				err = fmt.Errorf("%w\n  (%v)", err, r.Err)
			}
		}
	}
	return s, err
}

// Open finds target (Find) and connects to its supervisor: the one
// connection a verb on one session makes. A local session is confirmed on
// it by its own state, which then fills the Listing (Find's holds the
// cached facts only): a fact the cache is wrong about — a write not made
// yet, or a file another process of this user wrote in the runtime dir —
// never sends the verb to another session; on a mismatch every socket is
// asked and the session found that way is dialled. done closes the
// connection.
func (f *Fleet) Open(ctx context.Context, target, wd string) (s Listing, c *ipc.Client, done func(), err error) {
	for _, cached := range []bool{true, false} {
		if s, err = f.find(ctx, target, wd, cached); err != nil {
			return Listing{}, nil, nil, err
		}
		if c, done, err = f.Dial(ctx, s); err != nil {
			return Listing{}, nil, nil, fmt.Errorf("connect to %s: %w", s.State.Name, Stale(s, err))
		}
		if s.Host != "" {
			return s, c, done, nil // a relay's listing is the sessions' own state
		}
		var st ipc.State
		if err = Call(ctx, c, ipc.MethodState, nil, &st); err != nil {
			done()
			return Listing{}, nil, nil, fmt.Errorf("ask %s its state: %w", s.State.Name, err)
		}
		_, rest, _ := f.splitHostTarget(target)
		if _, ferr := FindTarget([]Listing{{Socket: s.Socket, State: st}}, rest, wd); ferr == nil && st.SessionID == s.State.SessionID {
			s.State = st
			return s, c, done, nil
		}
		done()
	}
	return Listing{}, nil, nil, fmt.Errorf("target %q: the session found does not say it is %q; run it again", target, target)
}

// localSessions is this host's sessions for Find: from the queue files
// (cached reports that some came from there), and, for a socket without
// readable facts, from its state. It dials only those sockets and removes
// nothing; a stale one (its supervisor is gone) is left out.
func localSessions(ctx context.Context, dir string) (sessions []Listing, errs []SocketError, cached bool, err error) {
	sessions, live, err := readQueueDir(dir, false)
	if err != nil {
		return nil, nil, false, err
	}
	cached = len(sessions) > 0
	known := make(map[string]bool, len(sessions))
	for _, s := range sessions {
		known[s.State.SessionID] = true
	}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for id := range live {
		if known[id] {
			continue
		}
		path, perr := paths.Socket(dir, id)
		if perr != nil {
			continue // a name no supervisor could listen on
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := askState(ctx, path, DialTimeout, nil)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				sessions = append(sessions, Listing{Socket: path, State: st})
			case errors.Is(err, syscall.ENOENT), isStale(err):
				// Gone: exited meanwhile, or left a stale socket for the
				// next listing to remove.
			default:
				errs = append(errs, SocketError{path, err})
			}
		}()
	}
	wg.Wait()
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].State.SessionID < sessions[j].State.SessionID })
	sort.Slice(errs, func(i, j int) bool { return errs[i].Socket < errs[j].Socket })
	return sessions, errs, cached, nil
}

// Stale explains a Dial error of a session Find resolved: its supervisor
// is gone but its socket is still there.
func Stale(s Listing, err error) error {
	if errors.Is(err, ipc.ErrStale) {
		return fmt.Errorf("%s (session %s) is gone: its supervisor ended without removing its socket (sup ls removes it): %w",
			s.State.Name, s.State.SessionID, err)
	}
	return err
}
