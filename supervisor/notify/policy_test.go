package notify

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/config"
)

var t0 = time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func never() bool { return false }

// step asks p at now about an episode that began at since, and sends
// when told.
func step(p *Policy, since, skip time.Time, now time.Time, watched bool) (bool, time.Time) {
	fire, next := p.Decide(Facts{Now: now, WaitingSince: since, SkipUntil: skip}, func() bool { return watched })
	if fire {
		next = p.Sent(since, now)
	}
	return fire, next
}

// Once per episode, after `after`, not while watched, again for a new
// episode.
func TestOncePerEpisode(t *testing.T) {
	p := NewPolicy(config.Notify{After: 15 * time.Second, Tmux: true})
	ep := at(0)
	if fire, next := step(p, ep, time.Time{}, at(5*time.Second), false); fire || !next.Equal(at(15*time.Second)) {
		t.Fatalf("at 5s: fire %v next %v, want the due time 15s", fire, next)
	}
	if fire, next := step(p, ep, time.Time{}, at(15*time.Second), true); fire || !next.Equal(at(16*time.Second)) {
		t.Fatalf("due while watched: fire %v next %v, want a look 1s later", fire, next)
	}
	if fire, _ := step(p, ep, time.Time{}, at(16*time.Second), false); !fire {
		t.Fatal("due, nobody looking: no notification")
	}
	if fire, next := step(p, ep, time.Time{}, at(60*time.Second), false); fire || !next.IsZero() {
		t.Fatalf("the same episode again: fire %v next %v", fire, next)
	}
	// Progress, then a new wait: a new episode.
	step(p, time.Time{}, time.Time{}, at(61*time.Second), false)
	ep2 := at(62 * time.Second)
	if fire, _ := step(p, ep2, time.Time{}, at(77*time.Second), false); !fire {
		t.Fatal("a new episode was not notified")
	}
}

// Repeat reminds every Repeat while the episode lasts.
func TestRepeat(t *testing.T) {
	p := NewPolicy(config.Notify{After: 10 * time.Second, Repeat: time.Minute})
	ep := at(0)
	if fire, next := step(p, ep, time.Time{}, at(10*time.Second), false); !fire || !next.Equal(at(70*time.Second)) {
		t.Fatalf("first: fire %v next %v", fire, next)
	}
	if fire, next := step(p, ep, time.Time{}, at(30*time.Second), false); fire || !next.Equal(at(70*time.Second)) {
		t.Fatalf("before the reminder: fire %v next %v", fire, next)
	}
	if fire, _ := step(p, ep, time.Time{}, at(70*time.Second), false); !fire {
		t.Fatal("no reminder")
	}
}

// A session in skip cooldown is not notified; the skip's own episode is,
// after the cooldown and `after`.
func TestSkipCooldown(t *testing.T) {
	p := NewPolicy(config.Notify{After: 15 * time.Second})
	skipped := at(20 * time.Second) // the skip moved waiting_since here
	until := at(5 * time.Minute)
	if fire, next := step(p, skipped, until, at(40*time.Second), false); fire || !next.Equal(until) {
		t.Fatalf("cooling: fire %v next %v, want the cooldown's end", fire, next)
	}
	if fire, _ := step(p, skipped, until, until, false); !fire {
		t.Fatal("the cooldown ended long after `after`: no notification")
	}
}

// Not waiting: nothing, and nothing to wake for.
func TestNotWaiting(t *testing.T) {
	p := NewPolicy(config.DefaultNotify())
	if fire, next := p.Decide(Facts{Now: t0}, func() bool { t.Fatal("asked tmux for nothing"); return false }); fire || !next.IsZero() {
		t.Fatalf("fire %v next %v", fire, next)
	}
}
