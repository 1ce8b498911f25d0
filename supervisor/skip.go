//go:build linux

package supervisor

import (
	"context"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// maxSkipCooldown bounds a caller's cooldown: a longer one is surely a unit
// mistake (seconds sent as milliseconds would be tiny; the reverse huge).
const maxSkipCooldown = 24 * time.Hour

// handleSkip moves the session to the stuck queue's tail and keeps it from
// being head for the cooldown (params, else config queue.skip_cooldown).
// The queue itself is the broker's; this is the fact it orders by.
func (s *Session) handleSkip(_ context.Context, req *ipc.Request) (any, error) {
	var p ipc.SkipParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	cooldown := s.Plan().Config.Queue.SkipCooldown
	if p.CooldownMS < 0 || time.Duration(p.CooldownMS)*time.Millisecond > maxSkipCooldown {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "skip: cooldown_ms %d: valid values are 1 to %d (24 h), or 0 for the configured %s",
			p.CooldownMS, maxSkipCooldown.Milliseconds(), cooldown)
	}
	if p.CooldownMS > 0 {
		cooldown = time.Duration(p.CooldownMS) * time.Millisecond
	}
	now := time.Now()
	s.mu.Lock()
	st, ok := s.act.Skip(now, cooldown)
	s.mu.Unlock()
	if !ok {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "skip: the session is not waiting on the human (activity %s); only queued sessions can be skipped", st.Activity)
	}
	s.log.Info("skip", "cooldown", cooldown.String())
	s.publishActivity(st)
	return ipc.SkipResult{WaitingSince: unixMilli(st.WaitingSince), SkipUntil: unixMilli(st.SkipUntil)}, nil
}
