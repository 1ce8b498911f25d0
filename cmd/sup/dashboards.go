//go:build linux

package main

import (
	"context"
	"os"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/safetext"
)

// eventsRescan is how often `sup events --all` looks for new supervisors.
const eventsRescan = 500 * time.Millisecond

// followAll is `sup events --all`: every supervisor's events, merged, one
// JSON line each, with the session's id and name.
func followAll(ctx context.Context) error {
	enc := safetext.NewEncoder(os.Stdout) // agents' text: C1, DEL and bidi escaped (issue 20)
	var werr error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dir, err := runtimeDir()
	if err != nil {
		return err
	}
	err = broker.FollowAll(ctx, dir, eventsRescan, func(ev broker.SessionEvent) {
		if err := enc.Encode(ev); err != nil && werr == nil {
			werr = err // stdout closed (| head): stop
			cancel()
		}
	})
	if werr != nil {
		return nil
	}
	return err
}
