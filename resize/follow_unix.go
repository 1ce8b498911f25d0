//go:build unix

package resize

import (
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/creack/pty"
)

// Follower copies the size of a terminal to a pty whenever SIGWINCH arrives.
//
// Create one with [Follow] and end it with [Follower.Stop].
type Follower struct {
	from  *os.File
	apply func(*pty.Winsize) error

	// mu serialises read-then-apply, so that a Sync racing the signal loop
	// cannot apply an older size after a newer one.
	mu sync.Mutex

	sig      chan os.Signal
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// Follow starts copying the size of the terminal from to apply: once now,
// and again after every SIGWINCH the process receives.
//
// apply is a function rather than a pty because the supervisor opens a new
// pty each time it restarts the agent; apply should set the size of whatever
// pty is current (with [pty.Setsize]) and may be called from another
// goroutine. Errors from reading the size or from apply are dropped, since
// there is nobody to report them to between signals; call [Follower.Sync]
// to see them.
func Follow(from *os.File, apply func(*pty.Winsize) error) *Follower {
	f := &Follower{
		from:  from,
		apply: apply,
		// One slot is enough: a pending signal already means "read the
		// size again", so extra signals that arrive meanwhile are dropped
		// by signal.Notify and bursts coalesce for free.
		sig:  make(chan os.Signal, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	// Subscribe before the first Sync so that a resize landing between the
	// two is not lost.
	signal.Notify(f.sig, syscall.SIGWINCH)
	_ = f.Sync()
	go f.loop()
	return f
}

func (f *Follower) loop() {
	defer close(f.done)
	for {
		select {
		case <-f.stop:
			return
		case <-f.sig:
			// Dragging a window edge sends a storm of signals; only the
			// size at the moment we look matters.
			_ = f.Sync()
		}
	}
}

// Sync reads the size of the terminal now and passes it to apply. The
// supervisor calls it after a restart, so the new pty starts at the right
// size. It may be called at any time, also after Stop.
func (f *Follower) Sync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ws, err := pty.GetsizeFull(f.from)
	if err != nil {
		return err
	}
	return f.apply(ws)
}

// Stop stops following. When it returns, apply is no longer running and
// will not be called again by the signal loop, so the caller may close the
// pty. Stop may be called more than once.
func (f *Follower) Stop() {
	f.stopOnce.Do(func() {
		signal.Stop(f.sig)
		close(f.stop)
	})
	<-f.done
}
