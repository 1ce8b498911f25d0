package notify

import (
	"time"

	"github.com/sup-tmux/sup/internal/config"
)

// Facts are what the policy decides on, read from the session at one
// moment.
type Facts struct {
	Now          time.Time
	WaitingSince time.Time // zero: the session waits on nobody
	SkipUntil    time.Time // the human skipped it until then
}

// WatchPoll is how often a waiting session that is due but watched is
// looked at again: when the human looks away without acting, the
// notification follows within it.
const WatchPoll = time.Second

// Policy remembers what was notified. Not safe for concurrent use.
type Policy struct {
	cfg      config.Notify
	episode  time.Time // WaitingSince of the episode last notified
	lastSent time.Time // when it was last notified
}

// NewPolicy returns a policy for cfg (zero fields are not defaulted:
// load cfg through config.yaml or start from config.DefaultNotify).
func NewPolicy(cfg config.Notify) *Policy { return &Policy{cfg: cfg} }

// Decide says whether to notify now and when to look next (zero: not
// until the facts change). watched is asked only when a notification is
// due: whether an attached client shows the session's pane. A notification
// that is due while watched is not sent, and is looked at again after
// WatchPoll. The caller reports a sent notification with Sent.
func (p *Policy) Decide(f Facts, watched func() bool) (notify bool, next time.Time) {
	if f.WaitingSince.IsZero() {
		p.episode = time.Time{}
		return false, time.Time{}
	}
	if f.SkipUntil.After(f.Now) {
		// A skip starts a new episode at its own time (waiting_since =
		// the skip); nothing while it cools.
		return false, f.SkipUntil
	}
	due := f.WaitingSince.Add(p.cfg.After)
	if p.episode.Equal(f.WaitingSince) {
		if p.cfg.Repeat <= 0 {
			return false, time.Time{} // once per episode
		}
		due = p.lastSent.Add(p.cfg.Repeat)
	}
	if f.Now.Before(due) {
		return false, due
	}
	if watched() {
		return false, f.Now.Add(WatchPoll)
	}
	return true, time.Time{}
}

// Sent records a notification sent at now for the episode that began at
// waitingSince, and says when to look next (a reminder, or zero).
func (p *Policy) Sent(waitingSince, now time.Time) time.Time {
	p.episode, p.lastSent = waitingSince, now
	if p.cfg.Repeat > 0 {
		return now.Add(p.cfg.Repeat)
	}
	return time.Time{}
}
