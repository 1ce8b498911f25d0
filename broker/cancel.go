//go:build linux

package broker

import (
	"context"
	"errors"
	"fmt"

	"github.com/sup-tmux/sup/ipc"
)

// CancelTrigger asks s's trigger desk to take trigger p.TriggerID back
// before it is typed. TARGET_NOT_FOUND means the trigger call itself has
// not reached the desk yet: settle then waits for that call briefly and
// reports whether it already finished (finished: nothing to cancel);
// otherwise the cancel is asked once more, as p.
func CancelTrigger(ctx context.Context, s Listing, p ipc.CancelTriggerParams, settle func() (finished bool)) (r ipc.CancelTriggerResult, finished bool, err error) {
	c, err := ipc.Dial(s.Socket, DialTimeout)
	if err != nil {
		return r, false, fmt.Errorf("could not reach %s to cancel it (it may still be typed): %w", s.State.Name, err)
	}
	defer c.Close()
	err = Call(ctx, c, ipc.MethodCancelTrigger, p, &r)
	var ie *ipc.Error
	if errors.As(err, &ie) && ie.Code == ipc.CodeTargetNotFound {
		if settle() {
			return r, true, nil
		}
		err = Call(ctx, c, ipc.MethodCancelTrigger, p, &r)
	}
	if err != nil {
		return r, false, fmt.Errorf("cancel: %w", err)
	}
	return r, false, nil
}
