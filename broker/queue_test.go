//go:build linux

package broker

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

func sess(id string, waiting, skipUntil int64, reason string) Listing {
	return Listing{Socket: "/x/" + id + ".sock", State: ipc.State{SessionID: id, Name: id, WaitingSince: waiting, SkipUntil: skipUntil, Reason: reason}}
}

func TestQueue(t *testing.T) {
	now := time.UnixMilli(10_000)
	cases := []struct {
		name     string
		sessions []Listing
		want     []string // ids in order; a trailing * marks cooling
		head     string   // "" for a queue that presents as empty
	}{
		{"empty", nil, nil, ""},
		{"none waiting", []Listing{sess("a", 0, 0, ""), sess("b", 0, 0, "")}, nil, ""},
		{"fifo", []Listing{sess("b", 2000, 0, "stopped"), sess("a", 1000, 0, "stopped"), sess("c", 3000, 0, "stopped")},
			[]string{"a", "b", "c"}, "a"},
		{"reason never reorders", []Listing{sess("perm", 2000, 0, "permission"), sess("stop", 1000, 0, "stopped"), sess("halt", 1500, 0, "halted")},
			[]string{"stop", "halt", "perm"}, "stop"},
		{"busy sessions are not members", []Listing{sess("busy", 0, 0, ""), sess("a", 5000, 0, "stopped")}, []string{"a"}, "a"},
		{"cooling after eligible", []Listing{sess("a", 9000, 20_000, "stopped"), sess("b", 5000, 0, "stopped")},
			[]string{"b", "a*"}, "b"},
		{"all cooling presents as empty", []Listing{sess("a", 9000, 20_000, "stopped"), sess("b", 8000, 11_000, "stopped")},
			[]string{"b*", "a*"}, ""},
		{"cooldown over: eligible again by its place", []Listing{sess("a", 9000, 10_000, "stopped"), sess("b", 9500, 0, "stopped")},
			[]string{"a", "b"}, "a"},
		{"ties by session id", []Listing{sess("b", 1000, 0, ""), sess("a", 1000, 0, "")}, []string{"a", "b"}, "a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := Queue(c.sessions, now)
			var got []string
			for _, e := range q {
				id := e.State.SessionID
				if e.Cooling {
					id += "*"
				}
				got = append(got, id)
			}
			if len(got) != len(c.want) {
				t.Fatalf("queue %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("queue %v, want %v", got, c.want)
				}
			}
			h, ok := Head(q)
			switch {
			case c.head == "" && ok:
				t.Fatalf("head %s, want none", h.State.SessionID)
			case c.head != "" && (!ok || h.State.SessionID != c.head):
				t.Fatalf("head %s (ok %v), want %s", h.State.SessionID, ok, c.head)
			}
		})
	}
}
