//go:build linux

package supervisor

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/store"
)

// queueFile is where the session publishes its queue facts for `sup
// status-line` (<runtime dir>/queue/<id>.json, specs/broker.md): rewritten
// when a fact changes, never on a timer, and removed when sup exits.
type queueFile struct {
	mu      sync.Mutex
	path    string
	last    ipc.QueueFacts
	written bool // the file holds last
	closed  bool // sup is exiting: late changes must not bring the file back
}

// publishQueueTo starts publishing the queue facts to path.
func (s *Session) publishQueueTo(path string) {
	s.queue = &queueFile{path: path}
	s.publishQueue()
}

// publishQueue writes the queue file if a fact changed since the last
// write. The facts are read under the file's lock, so concurrent callers
// cannot leave an older snapshot behind the newer one.
func (s *Session) publishQueue() {
	q := s.queue
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	f := s.queueFacts()
	if q.closed || q.written && f == q.last {
		return
	}
	if err := store.WriteQueueFile(q.path, f); err != nil {
		q.written = false // retried on the next change
		s.log.Warn("queue_file_failed", "path", q.path, "err", err)
		return
	}
	q.last, q.written = f, true
}

// republishQueue rewrites the queue file even if nothing changed: the
// runtime dir was deleted and recreated under the session.
func (s *Session) republishQueue() {
	if q := s.queue; q != nil {
		q.mu.Lock()
		q.written = false
		q.mu.Unlock()
		s.publishQueue()
	}
}

// unpublishQueue removes the queue file for good.
func (s *Session) unpublishQueue() {
	q := s.queue
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if err := os.Remove(q.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("queue_file_remove_failed", "path", q.path, "err", err)
	}
}

func (s *Session) queueFacts() ipc.QueueFacts {
	s.mu.Lock()
	defer s.mu.Unlock()
	act := s.act.State(time.Now())
	return ipc.QueueFacts{
		SessionID:    s.plan.SessionID,
		Name:         s.plan.Name,
		Workspace:    s.plan.Workspace,
		Role:         s.plan.Role,
		Activity:     string(act.Activity),
		Reason:       act.Reason,
		WaitingSince: unixMilli(act.WaitingSince),
		SkipUntil:    unixMilli(act.SkipUntil),
		SupPID:       os.Getpid(),
		Lifecycle:    s.lifecycle,
	}
}
