//go:build linux

package hooks

import (
	"context"
	"fmt"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// Forward parses agent's hook payload data and sends it to the supervisor
// listening on socket, giving up at deadline: `sup hook` runs inside the
// agent's turn, so it must never slow the agent, whatever happens to sup.
// The error says what failed; `sup hook` ignores it (it always exits 0).
func Forward(ctx context.Context, agent, socket string, data []byte, deadline time.Time) error {
	p, err := Parse(agent, data)
	if err != nil {
		return err
	}
	c, err := ipc.Dial(socket, time.Until(deadline))
	if err != nil {
		return fmt.Errorf("hook %s: %w", p.Event, err)
	}
	defer c.Close()
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if err := c.Call(ctx, ipc.MethodHook, p, nil); err != nil {
		return fmt.Errorf("hook %s: %w", p.Event, err)
	}
	return nil
}
