//go:build linux

package broker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// ChangeKind says what a Change reports.
type ChangeKind int

const (
	// SessionUpdated carries a session's current state: when Watch first
	// follows it, then after each of its events.
	SessionUpdated ChangeKind = iota
	// SessionGone says a followed supervisor's stream ended (it exited,
	// was killed, or dropped us): forget its row.
	SessionGone
	// DirMissing says the runtime dir does not exist (now); DirPresent
	// that it exists again (or from the start).
	DirMissing
	DirPresent
	// HostUp says another host's relay answers (WatchHost); HostDown that
	// it does not, or no longer, with Err saying why: its rows are gone
	// until it is back.
	HostUp
	HostDown
)

// Change is one thing Watch saw.
type Change struct {
	Kind    ChangeKind
	Session Listing  // SessionUpdated, SessionGone (Socket only for the latter)
	Methods []string // SessionUpdated: the methods hello listed
	Event   string   // SessionUpdated: the event that caused it; "" for the first state
	Host    string   // HostUp, HostDown: the host's name
	Err     error    // HostDown: why (a *HostError where the host was reached at all)
}

// watchEvents are the events that can change what a dashboard shows.
// Not `client`: each state Watch asks for would report its own connection.
var watchEvents = []string{"lifecycle", "activity", "trigger"}

// watchPoll is how often Watch looks at the runtime dir when inotify cannot
// tell it (no inotify, or the dir's parent is missing too).
const watchPoll = 500 * time.Millisecond

// Watch follows every supervisor in dir until ctx ends and calls emit
// (never concurrently) with each change: a session's state when it is
// found and after each of its events (re-read from the supervisor: one
// rule for what a session shows, the supervisor's), a session gone, the
// runtime dir missing or back. Unlike FollowAll it is woken by inotify,
// not a timer: idle, it sleeps. It watches dir for new sockets and, while
// dir is missing, dir's parent for its return; without inotify it falls
// back to looking every 500 ms.
func Watch(ctx context.Context, dir string, emit func(Change)) error {
	w := &watcher{ctx: ctx, dir: dir, following: map[string]bool{}, wake: make(chan struct{}, 1)}
	w.emitFn = emit
	defer w.wg.Wait()
	ino, err := newInotify()
	if err != nil {
		ino = nil // polling it is
	} else {
		defer ino.close()
		go ino.run(w.poke)
	}
	stop := context.AfterFunc(ctx, w.poke)
	defer stop()
	var told *bool // what the last DirPresent/DirMissing said
	for ctx.Err() == nil {
		exists := isDir(dir)
		if told == nil || *told != exists {
			kind := DirMissing
			if exists {
				kind = DirPresent
			}
			w.emit(Change{Kind: kind})
			told = &exists
		}
		poll := ino == nil
		if ino != nil {
			// Watch dir when it exists; its parent (for its return) when
			// it does not. A watch that cannot be set means polling.
			poll = !ino.watch(dir, exists)
		}
		if exists {
			w.scan()
		}
		if poll {
			select {
			case <-ctx.Done():
			case <-w.wake:
			case <-time.After(watchPoll):
			}
			continue
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		}
	}
	return nil
}

type watcher struct {
	ctx       context.Context
	dir       string
	mu        sync.Mutex // guards following and serialises emitFn
	following map[string]bool
	emitFn    func(Change)
	wg        sync.WaitGroup
	wake      chan struct{}
}

func (w *watcher) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher) emit(c Change) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx.Err() == nil {
		w.emitFn(c)
	}
}

// scan follows every socket in dir not followed yet.
func (w *watcher) scan() {
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		return // gone meanwhile: the next wake-up says so
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sock") {
			continue
		}
		path := filepath.Join(w.dir, e.Name())
		w.mu.Lock()
		seen := w.following[path]
		w.following[path] = true
		w.mu.Unlock()
		if seen {
			continue
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.follow(path)
			w.mu.Lock()
			delete(w.following, path)
			w.mu.Unlock()
			// A supervisor that restarted under the same name made a new
			// socket while we followed the old one: look again.
			w.poke()
		}()
	}
}

// follow subscribes to one supervisor, then reports its state at once and
// after each event, until its stream ends.
func (w *watcher) follow(path string) {
	sub, err := w.subscribe(path)
	if err != nil {
		return // stale or gone: Discover's business
	}
	stop := context.AfterFunc(w.ctx, func() { sub.Close() })
	defer stop()
	defer sub.Close()
	var (
		calls   *ipc.Client
		methods []string
	)
	defer func() {
		if calls != nil {
			calls.Close()
		}
	}()
	// ask re-reads state on a second connection (the first carries only
	// events now), dialling again if the server closed it (idle timeout).
	ask := func(event string) bool {
		for try := 0; try < 2; try++ {
			if calls == nil {
				if calls, err = ipc.Dial(path, time.Second); err != nil {
					return false
				}
				var h ipc.HelloResult
				if w.call(calls, ipc.MethodHello, &h) == nil {
					methods = h.Methods
				}
			}
			var st ipc.State
			if err := w.call(calls, ipc.MethodState, &st); err == nil {
				w.emit(Change{Kind: SessionUpdated, Session: Listing{Socket: path, State: st}, Methods: methods, Event: event})
				return true
			}
			calls.Close()
			calls = nil
		}
		return false
	}
	if ask("") {
		for {
			ev, err := sub.Next()
			if err != nil || !ask(ev.Event) {
				break
			}
		}
	}
	w.emit(Change{Kind: SessionGone, Session: Listing{Socket: path}})
}

// subscribe connects to path and subscribes to watchEvents. A socket
// whose supervisor is between bind and listen refuses connections for a
// moment, so a refusal is retried briefly before it counts as stale.
func (w *watcher) subscribe(path string) (*ipc.Subscription, error) {
	var err error
	for try := 0; try < 20; try++ {
		var c *ipc.Client
		c, err = ipc.Dial(path, time.Second)
		if err == nil {
			ctx, cancel := context.WithTimeout(w.ctx, 2*time.Second)
			sub, serr := c.Subscribe(ctx, watchEvents)
			cancel()
			if serr != nil {
				c.Close()
			}
			return sub, serr
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, err
		}
		select {
		case <-w.ctx.Done():
			return nil, w.ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil, err
}

func (w *watcher) call(c *ipc.Client, method string, out any) error {
	ctx, cancel := context.WithTimeout(w.ctx, 2*time.Second)
	defer cancel()
	return c.Call(ctx, method, nil, out)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
