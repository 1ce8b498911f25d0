//go:build linux

package supervisor

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/ipc"
)

// queueFile is where the session publishes its queue facts for `sup
// status-line` (<runtime dir>/queue/<id>.json, specs/broker.md): rewritten
// when a fact changes, never on a timer, and removed when sup exits. It
// owns its lock, the write path's: it reads one snapshot of the facts
// (which takes no lock) under it, so concurrent publishers cannot leave an
// older snapshot behind a newer one. A nil
// *queueFile publishes nothing.
type queueFile struct {
	path  string
	facts func() ipc.QueueFacts
	log   *slog.Logger

	mu      sync.Mutex
	last    ipc.QueueFacts
	written bool // the file holds last
	closed  bool // sup is exiting: late changes must not bring the file back
	// failing is the last write's error while writes fail; retry is
	// armed then, so the file comes back once the fault is gone (a
	// symlink in the dir's place removed) without waiting for a change.
	failing error
	retry   *time.Timer
}

// queueRetry spaces the writes of a failing queue file, as stampGap
// spaces the state file's.
const queueRetry = 250 * time.Millisecond

// publish writes the file if a fact changed since the last write.
func (q *queueFile) publish() {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	f := q.facts()
	if q.closed || q.written && f == q.last {
		return
	}
	if err := store.WriteQueueFile(q.path, f); err != nil {
		q.written = false
		if q.failing == nil || q.failing.Error() != err.Error() {
			q.log.Warn("queue_file_failed", "path", q.path, "err", err, "retry_in", queueRetry.String())
		}
		q.failing = err
		if q.retry == nil {
			q.retry = time.AfterFunc(queueRetry, q.publish)
		} else {
			q.retry.Reset(queueRetry)
		}
		return
	}
	if q.failing != nil {
		q.log.Info("queue_file_written", "path", q.path, "after", q.failing.Error())
		q.failing = nil
	}
	q.last, q.written = f, true
}

// republish rewrites the file even if nothing changed: the runtime dir
// was deleted and recreated under the session.
func (q *queueFile) republish() {
	if q == nil {
		return
	}
	q.mu.Lock()
	q.written = false
	q.mu.Unlock()
	q.publish()
}

// remove deletes the file for good: later changes do not bring it back.
func (q *queueFile) remove() {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.retry != nil {
		q.retry.Stop()
	}
	if err := os.Remove(q.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		q.log.Warn("queue_file_remove_failed", "path", q.path, "err", err)
	}
}

// publishQueue writes the queue file if a fact changed, and the state
// file, and tells the notifier: the queue's facts are the ones it decides
// on.
func (s *Session) publishQueue() {
	s.queue.publish()
	s.states.publish()
	s.notifier.poke()
}

func (s *Session) queueFacts() ipc.QueueFacts {
	n := s.owner.load()
	f, act := n.run, n.state(time.Now())
	return ipc.QueueFacts{
		SessionID:    f.plan.SessionID,
		Name:         f.plan.Name,
		Workspace:    f.plan.Workspace,
		Role:         f.plan.Role,
		Document:     f.plan.Document,
		Activity:     string(act.Activity),
		Reason:       act.Reason,
		WaitingSince: unixMilli(act.WaitingSince),
		SkipUntil:    unixMilli(act.SkipUntil),
		SupPID:       supPID,
		Lifecycle:    f.lifecycle,
	}
}
