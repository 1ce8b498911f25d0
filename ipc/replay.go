package ipc

// bufferedEvent is one published event kept for replay, already framed.
type bufferedEvent struct {
	seq   uint64
	event string
	frame []byte
}

// replayBuffer keeps the last max events a server published, so that a
// subscriber that lost its connection (a relay restarted over ssh, say)
// resubscribes with since_seq and misses nothing. Its size is the
// subscriber buffer's, so a replay always fits a new subscriber's queue.
// Guarded by Server.subMu.
type replayBuffer struct {
	max    int
	events []bufferedEvent // oldest first
}

func (r *replayBuffer) add(e bufferedEvent) {
	if r.max <= 0 {
		return
	}
	if len(r.events) == r.max {
		copy(r.events, r.events[1:])
		r.events = r.events[:r.max-1]
	}
	r.events = append(r.events, e)
}

// replay queues for sub the buffered events it wants numbered above
// since, and reports a gap: events after since (up to last, the newest
// seq) that are no longer buffered, or a since above last (it was
// numbered by a server that has since been replaced).
func (r *replayBuffer) replay(since, last uint64, sub *subscriber) (gap bool) {
	if since > last {
		return true // numbered by an earlier server on this socket
	}
	if since == last {
		return false
	}
	if len(r.events) == 0 || r.events[0].seq > since+1 {
		gap = true
	}
	for _, e := range r.events {
		if e.seq > since && sub.wants(e.event) {
			sub.ch <- e.frame // fits: the buffer holds at most EventBuffer
		}
	}
	return gap
}
