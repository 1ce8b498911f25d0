//go:build linux

package broker

import (
	"sort"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// Entry is one member of the stuck queue.
type Entry struct {
	Listing
	// Cooling: the human skipped it and its cooldown has not ended, so it
	// is not eligible as head; it is listed after the eligible ones.
	Cooling bool
}

// Waiting reports whether a session waits on the human: its supervisor
// stamps waiting_since when the agent finished a turn, asks for
// confirmation, exited cleanly awaiting Enter or halted, and clears it on
// progress. Why it waits never matters here.
func Waiting(s Listing) bool { return s.State.WaitingSince != 0 }

// Queue orders the sessions waiting on the human: the eligible ones first,
// oldest waiting_since first (FIFO), then the ones in skip cooldown, in the
// same order. reason never reorders. Ties (same millisecond) go by session
// id so that every broker sees one order.
func Queue(sessions []Listing, now time.Time) []Entry {
	nowMS := now.UnixMilli()
	var q []Entry
	for _, s := range sessions {
		if Waiting(s) {
			q = append(q, Entry{Listing: s, Cooling: s.State.SkipUntil > nowMS})
		}
	}
	sort.SliceStable(q, func(i, j int) bool {
		a, b := q[i], q[j]
		if a.Cooling != b.Cooling {
			return !a.Cooling
		}
		if a.State.WaitingSince != b.State.WaitingSince {
			return a.State.WaitingSince < b.State.WaitingSince
		}
		return a.State.SessionID < b.State.SessionID
	})
	return q
}

// Head returns the queue's head: its first eligible entry. A queue whose
// every member cools presents as empty.
func Head(q []Entry) (Entry, bool) {
	if len(q) == 0 || q[0].Cooling {
		return Entry{}, false
	}
	return q[0], true
}

// Eligible counts the entries that may be head.
func Eligible(q []Entry) int {
	n := 0
	for _, e := range q {
		if !e.Cooling {
			n++
		}
	}
	return n
}

// QueueItem is one line of `sup queue --json`: the session's state plus
// its place.
type QueueItem struct {
	Position int    `json:"position"` // 1-based
	Cooling  bool   `json:"cooling"`  // skipped, cooldown running: not eligible as head
	Socket   string `json:"socket"`   // on host
	Host     string `json:"host"`     // the session's host: this one's short name, or a name of hosts:
	ipc.State
}

// QueueItems is q as `sup queue --json` prints it.
func QueueItems(q []Entry) []QueueItem {
	items := make([]QueueItem, 0, len(q))
	for i, e := range q {
		items = append(items, QueueItem{Position: i + 1, Cooling: e.Cooling, Socket: e.Socket, Host: HostOf(e.Listing), State: e.State})
	}
	return items
}
