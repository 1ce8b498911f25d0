//go:build linux

package broker

import (
	"context"

	"github.com/sup-tmux/sup/ipc"
)

// FollowSession streams the events of the local session s, of the kinds
// named, to fn (one call at a time) on a connection of its own, until
// stop is called; after stop returns fn is not called again. Best effort:
// when s cannot be reached or subscribed to within DialTimeout (an older
// supervisor without those events), fn is never called and stop does
// nothing.
func FollowSession(ctx context.Context, s Listing, events []string, fn func(ipc.Event)) (stop func()) {
	c, err := ipc.Dial(s.Socket, DialTimeout)
	if err != nil {
		return func() {}
	}
	sctx, cancel := context.WithTimeout(ctx, DialTimeout)
	sub, err := c.Subscribe(sctx, events)
	cancel()
	if err != nil {
		c.Close()
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			ev, err := sub.Next()
			if err != nil {
				return
			}
			select {
			case <-quit:
				return
			default:
			}
			fn(ev)
		}
	}()
	var once bool
	return func() {
		if once {
			return
		}
		once = true
		close(quit)
		sub.Close()
		<-finished
	}
}
