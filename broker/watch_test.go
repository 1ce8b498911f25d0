//go:build linux

package broker

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/ipc"
)

// changes collects what Watch emits.
type changes struct {
	mu  sync.Mutex
	all []Change
}

func (c *changes) add(ch Change) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all = append(c.all, ch)
}

// await waits until a change matching ok has arrived.
func (c *changes) await(t *testing.T, what string, ok func(Change) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for _, ch := range c.all {
			if ok(ch) {
				c.mu.Unlock()
				return
			}
		}
		c.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no change: %s; got %+v", what, c.all)
}

// TestWatch: a session present at start and one that appears later are
// reported with their state and hello's methods; an event re-reads the
// state; a supervisor that ends is gone; the runtime dir going and
// coming back is reported, and a supervisor in the new dir is followed.
func TestWatch(t *testing.T) {
	dir := shortDir(t)
	a := ipctest.Serve(t, dir, ipc.State{SessionID: "aaaa", Name: "alpha", Activity: "busy"})
	var got changes
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, dir, got.add) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	isState := func(name, activity, event string) func(Change) bool {
		return func(c Change) bool {
			return c.Kind == SessionUpdated && c.Session.State.Name == name && c.Session.State.Activity == activity && c.Event == event
		}
	}
	got.await(t, "dir present", func(c Change) bool { return c.Kind == DirPresent })
	got.await(t, "alpha's first state", isState("alpha", "busy", ""))
	got.await(t, "alpha's methods", func(c Change) bool {
		return c.Kind == SessionUpdated && len(c.Methods) > 0 && c.Methods[0] == "hello"
	})

	b := ipctest.Serve(t, dir, ipc.State{SessionID: "bbbb", Name: "bravo", Activity: "ready"})
	got.await(t, "bravo, started later", isState("bravo", "ready", ""))
	a.Set(ipc.State{SessionID: "aaaa", Name: "alpha", Activity: "needs_confirmation", WaitingSince: 5})
	got.await(t, "alpha after its event", isState("alpha", "needs_confirmation", "activity"))

	b.Server.Shutdown(time.Second)
	got.await(t, "bravo gone", func(c Change) bool { return c.Kind == SessionGone && c.Session.Socket == dir+"/bbbb.sock" })

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	got.await(t, "dir missing", func(c Change) bool { return c.Kind == DirMissing })
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ipctest.Serve(t, dir, ipc.State{SessionID: "cccc", Name: "charlie", Activity: "ready"})
	got.await(t, "charlie in the new dir", isState("charlie", "ready", ""))
	got.mu.Lock()
	defer got.mu.Unlock()
	if last := got.all[len(got.all)-1]; last.Kind == DirMissing {
		t.Fatalf("the dir came back but the last change says missing: %+v", got.all)
	}
}
