package trigger

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func TestDecideCollision(t *testing.T) {
	c := Config{}.WithDefaults()
	busy := Look{Now: t0, Queued: t0, OperatorBusy: true}
	s := c.Decide(busy)
	if s.Action != Wait || s.Code != "OPERATOR_BUSY" || !s.Next.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("operator busy: %+v, want wait OPERATOR_BUSY, look again in 5s", s)
	}
	busy.Now = t0.Add(58 * time.Second)
	if s := c.Decide(busy); s.Action != Wait || !s.Next.Equal(t0.Add(60*time.Second)) {
		t.Fatalf("near max defer: %+v, want the next look at the deadline", s)
	}
	busy.Now = t0.Add(60 * time.Second)
	if s := c.Decide(busy); s.Action != Fail || s.Code != "DEFER_TIMEOUT" {
		t.Fatalf("at max defer: %+v, want DEFER_TIMEOUT", s)
	}
	quiet := Look{Now: t0.Add(20 * time.Second), Queued: t0}
	if s := c.Decide(quiet); s.Action != Deliver || s.Gate != GateEnforced {
		t.Fatalf("quiet: %+v, want deliver through the enforced gate", s)
	}
	forced := Look{Now: t0, Queued: t0, OperatorBusy: true, Force: true}
	if s := c.Decide(forced); s.Action != Deliver || s.Gate != GateBypassed {
		t.Fatalf("forced: %+v, want deliver, gate bypassed", s)
	}
}

func TestDecideAgentBusyAndRate(t *testing.T) {
	c := Config{}.WithDefaults()
	l := Look{Now: t0.Add(5 * time.Minute), Queued: t0, AgentBusy: true, Force: true}
	if s := c.Decide(l); s.Action != Wait || s.Code != "AGENT_BUSY" {
		t.Fatalf("mid-turn, even forced: %+v, want wait AGENT_BUSY", s)
	}
	l.Now = t0.Add(10 * time.Minute)
	if s := c.Decide(l); s.Action != Fail || s.Code != "DEFER_TIMEOUT" {
		t.Fatalf("busy past max_busy_wait: %+v", s)
	}
	r := Look{Now: t0, Queued: t0, RateUntil: t0.Add(30 * time.Second), Force: true}
	if s := c.Decide(r); s.Action != Wait || s.Code != "TRIGGER_RATE_LIMITED" || !s.Next.Equal(r.RateUntil) {
		t.Fatalf("rate limited: %+v", s)
	}
	r.Now = r.RateUntil
	if s := c.Decide(r); s.Action != Deliver {
		t.Fatalf("rate window free again: %+v", s)
	}
}

func TestAfterTimeoutBackoff(t *testing.T) {
	c := Config{}.WithDefaults()
	if retry, d := c.AfterTimeout(1, false); !retry || d != 2*time.Second {
		t.Fatalf("after attempt 1: %v %s, want retry after 2s", retry, d)
	}
	if retry, d := c.AfterTimeout(2, false); !retry || d != 4*time.Second {
		t.Fatalf("after attempt 2: %v %s, want retry after 4s", retry, d)
	}
	if retry, _ := c.AfterTimeout(3, false); retry {
		t.Fatal("after attempt 3: retried; want ACK_TIMEOUT")
	}
	if retry, _ := c.AfterTimeout(1, true); retry {
		t.Fatal("payload still on screen: retried; never paste twice into a live input box")
	}
	if retry, _ := (Config{Retries: -1}).WithDefaults().AfterTimeout(1, false); retry {
		t.Fatal("retries -1: retried")
	}
}

func TestGuardRateLimit(t *testing.T) {
	g := NewGuard(Config{})
	for i := range 10 {
		now := t0.Add(time.Duration(i) * time.Second)
		if v, _ := g.Check("th", now); v != Admit {
			t.Fatalf("trigger %d: %v, want admit", i+1, v)
		}
		g.Attempt("th", now)
	}
	v, until := g.Check("th", t0.Add(10*time.Second))
	if v != RateLimited || !until.Equal(t0.Add(time.Minute)) {
		t.Fatalf("11th within a minute: %v until %s, want rate limited until t0+1m", v, until)
	}
	if v, _ := g.Check("other", t0.Add(10*time.Second)); v != Admit {
		t.Fatal("another thread is limited too; the limit is per thread")
	}
	if v, _ := g.Check("th", t0.Add(time.Minute)); v != Admit {
		t.Fatal("a minute after the first: still limited")
	}
}

func TestGuardLoop(t *testing.T) {
	g := NewGuard(Config{LoopNoProgress: 5, RateLimit: 100})
	for i := range 4 {
		if blocked, _ := g.Count("th", "p"+string(rune('a'+i)), "same"); blocked {
			t.Fatalf("trigger %d without progress blocked; the 5th should", i+1)
		}
	}
	if blocked, why := g.Count("th", "pe", "same"); !blocked || why != "no_progress" {
		t.Fatalf("5th without progress: %v %q", blocked, why)
	}
	if v, _ := g.Check("th", t0); v != Blocked {
		t.Fatalf("after the trip: %v, want blocked until unblock", v)
	}
	if !g.Unblock("th") || g.Unblock("th") {
		t.Fatal("Unblock should report the block once")
	}
	if v, _ := g.Check("th", t0); v != Admit {
		t.Fatal("unblocked thread refused")
	}

	// Progress resets the counters: many triggers, each after progress.
	g2 := NewGuard(Config{LoopNoProgress: 3, RateLimit: 100})
	for i := range 10 {
		if blocked, _ := g2.Count("th", "p", string(rune('a'+i))); blocked {
			t.Fatalf("trigger %d after progress blocked", i+1)
		}
	}
	// The same prompt three times without progress.
	g3 := NewGuard(Config{})
	g3.Count("th", "same", "x")
	g3.Count("th", "other", "x")
	g3.Count("th", "same", "x")
	if blocked, why := g3.Count("th", "same", "x"); !blocked || why != "same_prompt" {
		t.Fatalf("third identical prompt: %v %q", blocked, why)
	}
}

func TestTable(t *testing.T) {
	tb := NewTable(Config{Remember: 2, RememberFor: time.Hour})
	tb.Start("a", t0)
	if o, ok := tb.Lookup("a", t0); !ok || o.Final {
		t.Fatalf("a under way: %+v %v", o, ok)
	}
	tb.Finish("a", "delivered", t0)
	tb.Finish("b", "timeout", t0)
	tb.Start("c", t0) // over capacity: the oldest final (a) goes
	if _, ok := tb.Lookup("a", t0); ok {
		t.Fatal("a survived eviction")
	}
	if o, ok := tb.Lookup("b", t0); !ok || o.Data != "timeout" {
		t.Fatalf("b: %+v %v", o, ok)
	}
	tb.Start("d", t0) // b goes; c is under way and stays
	if _, ok := tb.Lookup("c", t0); !ok {
		t.Fatal("an id under way was evicted")
	}
	if _, ok := tb.Lookup("d", t0.Add(2*time.Hour)); ok {
		t.Fatal("an id older than remember_for was still known")
	}
	tb.Forget("c")
	if _, ok := tb.Lookup("c", t0); ok {
		t.Fatal("forgotten id still known")
	}
}

func TestConfigMarker(t *testing.T) {
	if got := (Config{AckMarker: "ACK:{id}"}).Marker("t1"); got != "ACK:t1" {
		t.Fatalf("Marker = %q", got)
	}
}

// A question the agent asked holds a trigger that is not its answer, up to
// MaxBusyWait, then fails AGENT_ASKED; an answer or a force goes at once.
func TestDecideAsked(t *testing.T) {
	c := Config{}.WithDefaults()
	l := Look{Now: t0.Add(time.Minute), Queued: t0, Asked: true}
	if s := c.Decide(l); s.Action != Wait || s.Code != "AGENT_ASKED" || !s.Next.Equal(l.Now.Add(c.Recheck)) {
		t.Fatalf("asked: %+v, want wait AGENT_ASKED", s)
	}
	l.Now = t0.Add(c.MaxBusyWait)
	if s := c.Decide(l); s.Action != Fail || s.Code != "AGENT_ASKED" {
		t.Fatalf("asked past max_busy_wait: %+v, want fail AGENT_ASKED", s)
	}
	l.Now = t0
	l.Answering = true
	if s := c.Decide(l); s.Action != Deliver || s.Gate != GateEnforced {
		t.Fatalf("answering: %+v, want deliver", s)
	}
	l.Answering, l.Force = false, true
	if s := c.Decide(l); s.Action != Deliver || s.Gate != GateBypassed {
		t.Fatalf("forced: %+v, want deliver, gate bypassed", s)
	}
	l.Force, l.OperatorBusy = false, true
	if s := c.Decide(l); s.Code != "OPERATOR_BUSY" {
		t.Fatalf("asked while the human types: %+v, want OPERATOR_BUSY first", s)
	}
}
