//go:build linux

package broker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// SessionEvent is one event of one supervisor, as FollowAll merges them.
type SessionEvent struct {
	Host    string         `json:"host,omitempty"` // set when hosts: are configured
	Session string         `json:"session"`
	Name    string         `json:"name"`
	Event   string         `json:"event"`
	Seq     uint64         `json:"seq"`
	At      int64          `json:"at"`
	Data    map[string]any `json:"data"`
}

// FollowAll subscribes to every supervisor in dir and calls emit (never
// concurrently) with each event until ctx ends. It rescans dir every
// rescan interval for supervisors that appeared: a ReadDir of a small
// tmpfs directory is cheap, needs no inotify (absent on some systems and
// container setups) and also notices a supervisor that restarted under the
// same socket name. A stream that ends (its supervisor exited) is dropped;
// a socket still there is followed again at the next scan. The first
// events of a supervisor that appeared between two scans may be missed;
// its state is current at subscription.
func FollowAll(ctx context.Context, dir string, rescan time.Duration, emit func(SessionEvent)) error {
	return followAll(ctx, dir, rescan, nil, emit)
}

// gapEvent is the SessionEvent followAll emits when a supervisor no
// longer buffered some events after the seq asked for (Data["since"]; Seq
// is the supervisor's seq at the resubscription).
const gapEvent = "gap"

// followAll is FollowAll; since, when not nil, gives for a session id the
// last seq already seen, and that supervisor is subscribed with since_seq
// (ipc's replay) instead of live.
func followAll(ctx context.Context, dir string, rescan time.Duration, since func(id string) (uint64, bool), emit func(SessionEvent)) error {
	var (
		mu        sync.Mutex
		following = map[string]bool{}
		wg        sync.WaitGroup
	)
	defer wg.Wait()
	out := func(ev SessionEvent) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() == nil {
			emit(ev)
		}
	}
	t := time.NewTicker(rescan)
	defer t.Stop()
	for {
		entries, err := os.ReadDir(dir)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			mu.Lock()
			seen := following[path]
			if strings.HasSuffix(e.Name(), ".sock") && !seen {
				following[path] = true
				wg.Add(1)
				go func() {
					defer wg.Done()
					follow(ctx, path, since, out)
					mu.Lock()
					delete(following, path)
					mu.Unlock()
				}()
			}
			mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// follow streams one supervisor's events until it ends or ctx does.
func follow(ctx context.Context, path string, since func(string) (uint64, bool), out func(SessionEvent)) {
	c, err := ipc.Dial(path, time.Second)
	if err != nil {
		return // stale or gone: Discover's business
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	callCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	var st ipc.State
	err = c.Call(callCtx, ipc.MethodState, nil, &st)
	var sub *ipc.Subscription
	if err == nil {
		if last, ok := sinceOf(since, st.SessionID); ok {
			var res ipc.SubscribeResult
			sub, res, err = c.SubscribeSince(callCtx, nil, last)
			if err == nil && res.Gap {
				out(SessionEvent{Session: st.SessionID, Name: st.Name, Event: gapEvent, Seq: res.Seq, Data: map[string]any{"since": last}})
			}
		} else {
			sub, err = c.Subscribe(callCtx, nil)
		}
	}
	cancel()
	if err != nil {
		return
	}
	for {
		ev, err := sub.Next()
		if err != nil {
			return
		}
		out(SessionEvent{Session: st.SessionID, Name: st.Name, Event: ev.Event, Seq: ev.Seq, At: ev.At, Data: ev.Data})
	}
}

func sinceOf(since func(string) (uint64, bool), id string) (uint64, bool) {
	if since == nil {
		return 0, false
	}
	return since(id)
}
