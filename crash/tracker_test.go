package crash

import (
	"testing"
	"time"
)

// clock is a fake clock advanced by hand.
type clock struct{ now time.Time }

func newClock() *clock { return &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) advance(d time.Duration) time.Time {
	c.now = c.now.Add(d)
	return c.now
}

// run starts the child, lets it run for up, and reports its exit.
func run(tr *Tracker, c *clock, up time.Duration, code int, signal string) Decision {
	tr.Started(c.now)
	return tr.Exited(code, signal, c.advance(up))
}

type step struct {
	up     time.Duration // how long the child runs before exiting
	code   int
	signal string

	class  Class
	action Action
	delay  time.Duration
	health Health
	consec int
}

// runSteps runs steps on tr. If wait is set, the clock also advances by
// each decision's delay before the next start, as the supervisor would.
func runSteps(t *testing.T, tr *Tracker, wait bool, steps []step) {
	t.Helper()
	c := newClock()
	for i, s := range steps {
		d := run(tr, c, s.up, s.code, s.signal)
		if d.Exit.Class != s.class || d.Action != s.action || d.Delay != s.delay ||
			d.Health != s.health || d.ConsecutiveFailures != s.consec {
			t.Fatalf("step %d (up %v, code %d, signal %q): got class %s action %s delay %v health %s consec %d; "+
				"want class %s action %s delay %v health %s consec %d",
				i+1, s.up, s.code, s.signal,
				d.Exit.Class, d.Action, d.Delay, d.Health, d.ConsecutiveFailures,
				s.class, s.action, s.delay, s.health, s.consec)
		}
		if tr.Health() != d.Health || tr.ConsecutiveFailures() != d.ConsecutiveFailures {
			t.Fatalf("step %d: tracker reports health %s consec %d, decision %s %d",
				i+1, tr.Health(), tr.ConsecutiveFailures(), d.Health, d.ConsecutiveFailures)
		}
		if last, ok := tr.Last(); !ok || last != d.Exit {
			t.Fatalf("step %d: Last() = %+v, %v; want %+v", i+1, last, ok, d.Exit)
		}
		if wait {
			c.advance(d.Delay)
		}
	}
}

const s = time.Second

func TestSequences(t *testing.T) {
	tests := []struct {
		name  string
		wait  bool
		steps []step
	}{
		{"five fast failures halt", false, []step{
			{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
			{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 2},
			{up: s, code: 1, class: ClassFlapping, action: ActionRestart, delay: 30 * s, health: Degraded, consec: 3},
			{up: s, code: 1, class: ClassFlapping, action: ActionRestart, delay: 30 * s, health: Degraded, consec: 4},
			{up: s, code: 1, class: ClassFlapping, action: ActionHalt, health: Halted, consec: 5},
		}},
		{"five failures with delays waited halt", true, []step{
			// failures at 1, 4, 7, 38 and 69 s; at 69 only 38 and 69
			// are in the window, so the 5th is transient but halts.
			{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
			{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 2},
			{up: s, code: 1, class: ClassFlapping, action: ActionRestart, delay: 30 * s, health: Degraded, consec: 3},
			{up: s, code: 1, class: ClassFlapping, action: ActionRestart, delay: 30 * s, health: Degraded, consec: 4},
			{up: s, code: 1, class: ClassTransient, action: ActionHalt, health: Halted, consec: 5},
		}},
		{"failures spaced over 60s apart stay transient", true, []step{
			{up: 61 * s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
			{up: 59 * s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 2},
			{up: 59 * s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 3},
			{up: 59 * s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 4},
			{up: 59 * s, code: 1, class: ClassTransient, action: ActionHalt, health: Halted, consec: 5},
		}},
		{"window slides", true, []step{
			// Each start follows the previous delay; failures at 1, 31
			// and 61 s: 61-1 = 60 is not less than FlapWindow, so only
			// two are in the window.
			{up: 1 * s, code: 2, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
			{up: 28 * s, code: 2, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 2},
			{up: 28 * s, code: 2, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 3},
			// failures at 31, 61, 70: three within 60s.
			{up: 7 * s, code: 2, class: ClassFlapping, action: ActionRestart, delay: 30 * s, health: Degraded, consec: 4},
		}},
		{"signalled exits are failures", true, []step{
			{up: s, code: 137, signal: "SIGKILL", class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
			{up: s, code: 0, signal: "SIGTERM", class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 2},
			{up: s, code: 143, signal: "SIGTERM", class: ClassFlapping, action: ActionRestart, delay: 30 * s, health: Degraded, consec: 3},
		}},
		{"clean exit prompts and resets count", true, []step{
			{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
			{up: s, code: 0, class: ClassClean, action: ActionPrompt, health: Healthy, consec: 0},
			{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, NewTracker(Policy{}), tt.wait, tt.steps)
		})
	}
}

func TestDegradedThenHealthyAfterStableRun(t *testing.T) {
	runSteps(t, NewTracker(Policy{}), true, []step{
		{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
		{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 2},
		{up: s, code: 1, class: ClassFlapping, action: ActionRestart, delay: 30 * s, health: Degraded, consec: 3},
		// Up 60 s: the stable run resets before this exit is counted.
		{up: 60 * s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
	})
}

func TestStableRunBoundary(t *testing.T) {
	// 59 s is not stable: the degraded child stays degraded.
	runSteps(t, NewTracker(Policy{}), true, []step{
		{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 1},
		{up: s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Healthy, consec: 2},
		{up: s, code: 1, class: ClassFlapping, action: ActionRestart, delay: 30 * s, health: Degraded, consec: 3},
		{up: 59 * s, code: 1, class: ClassTransient, action: ActionRestart, delay: 2 * s, health: Degraded, consec: 4},
	})
}

func TestCheckStable(t *testing.T) {
	tr := NewTracker(Policy{})
	c := newClock()
	for range 3 {
		run(tr, c, s, 1, "")
	}
	if tr.Health() != Degraded || tr.ConsecutiveFailures() != 3 {
		t.Fatalf("setup: health %s consec %d", tr.Health(), tr.ConsecutiveFailures())
	}
	if tr.CheckStable(c.now) {
		t.Fatal("CheckStable true with no child running")
	}
	if _, ok := tr.StableAt(); ok {
		t.Fatal("StableAt ok with no child running")
	}

	start := c.advance(30 * s)
	tr.Started(start)
	at, ok := tr.StableAt()
	if !ok || !at.Equal(start.Add(60*s)) {
		t.Fatalf("StableAt() = %v, %v; want %v", at, ok, start.Add(60*s))
	}
	if tr.CheckStable(c.advance(59 * s)) {
		t.Fatal("CheckStable true after 59 s")
	}
	if tr.Health() != Degraded || tr.ConsecutiveFailures() != 3 {
		t.Fatalf("after 59 s: health %s consec %d", tr.Health(), tr.ConsecutiveFailures())
	}
	if !tr.CheckStable(c.advance(s)) {
		t.Fatal("CheckStable false after 60 s")
	}
	if tr.Health() != Healthy || tr.ConsecutiveFailures() != 0 {
		t.Fatalf("after stable: health %s consec %d", tr.Health(), tr.ConsecutiveFailures())
	}
	// A later crash is the first of a new series.
	d := tr.Exited(1, "", c.advance(s))
	if d.Exit.Class != ClassTransient || d.ConsecutiveFailures != 1 || d.Health != Healthy {
		t.Fatalf("crash after stable run: %+v", d)
	}
}

func TestStableRunForgetsFlapHistory(t *testing.T) {
	// With StableAfter shorter than FlapWindow, earlier failures are still
	// inside the window when the run turns stable; they must not count.
	tr := NewTracker(Policy{StableAfter: 10 * s})
	c := newClock()
	run(tr, c, s, 1, "")
	run(tr, c, s, 1, "")
	d := run(tr, c, 10*s, 1, "")
	if d.Exit.Class != ClassTransient || d.ConsecutiveFailures != 1 {
		t.Fatalf("after stable run: class %s consec %d, want transient 1", d.Exit.Class, d.ConsecutiveFailures)
	}
}

func TestConsecutiveReset(t *testing.T) {
	tests := []struct {
		name  string
		reset func(tr *Tracker, c *clock) Decision
	}{
		{"stable failing run", func(tr *Tracker, c *clock) Decision { return run(tr, c, 60*s, 1, "") }},
		{"clean exit", func(tr *Tracker, c *clock) Decision { return run(tr, c, s, 0, "") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Policy{})
			c := newClock()
			for range 4 {
				run(tr, c, s, 1, "")
				c.advance(61 * s) // keep them transient
			}
			if got := tr.ConsecutiveFailures(); got != 4 {
				t.Fatalf("after 4 failures consec = %d", got)
			}
			d := tt.reset(tr, c)
			want := 0
			if d.Exit.Class.Failed() {
				want = 1 // the stable run resets, then its own failure counts
			}
			if d.ConsecutiveFailures != want || d.Action == ActionHalt {
				t.Fatalf("reset exit: %+v, want consec %d and no halt", d, want)
			}
			// The count goes on from the reset value.
			for range 3 {
				run(tr, c, s, 1, "")
				c.advance(61 * s)
			}
			if got := tr.ConsecutiveFailures(); got != want+3 || tr.Health() != Healthy {
				t.Fatalf("consec = %d health %s, want %d healthy", got, tr.Health(), want+3)
			}
		})
	}
}

func TestHaltedIsSticky(t *testing.T) {
	tr := NewTracker(Policy{})
	c := newClock()
	var d Decision
	for range 5 {
		d = run(tr, c, s, 1, "")
	}
	if d.Action != ActionHalt || d.Health != Halted {
		t.Fatalf("5th failure: %+v", d)
	}

	// A clean exit (say after an explicit socket restart) still halts.
	d = run(tr, c, s, 0, "")
	if d.Exit.Class != ClassClean || d.Action != ActionHalt || d.Health != Halted || d.Delay != 0 {
		t.Fatalf("clean exit while halted: %+v", d)
	}
	if d.ConsecutiveFailures != 5 {
		t.Fatalf("clean exit while halted changed consec to %d", d.ConsecutiveFailures)
	}
	// A long stable run does not clear it either.
	tr.Started(c.now)
	if !tr.CheckStable(c.advance(2 * time.Minute)) {
		t.Fatal("CheckStable false after 2 minutes")
	}
	if tr.Health() != Halted {
		t.Fatalf("stable run cleared halt: health %s", tr.Health())
	}
	d = tr.Exited(1, "", c.advance(s))
	if d.Action != ActionHalt || d.Health != Halted || d.ConsecutiveFailures != 6 {
		t.Fatalf("failure while halted: %+v", d)
	}

	tr.Resume(c.advance(s))
	if tr.Health() != Healthy || tr.ConsecutiveFailures() != 0 {
		t.Fatalf("after Resume: health %s consec %d", tr.Health(), tr.ConsecutiveFailures())
	}
	if n := len(tr.History()); n != 7 {
		t.Fatalf("Resume changed history: %d exits, want 7", n)
	}
	// Fresh start: the next quick failure is transient, not flapping.
	d = run(tr, c, s, 1, "")
	if d.Exit.Class != ClassTransient || d.Action != ActionRestart || d.Health != Healthy || d.ConsecutiveFailures != 1 {
		t.Fatalf("first failure after Resume: %+v", d)
	}
	if d = run(tr, c, s, 0, ""); d.Action != ActionPrompt {
		t.Fatalf("clean exit after Resume: %+v", d)
	}
}

func TestDelaysPerClass(t *testing.T) {
	p := Policy{TransientDelay: 5 * s, FlappingDelay: 90 * s, FlapThreshold: 2, HaltAfter: 10}
	tr := NewTracker(p)
	c := newClock()
	tests := []struct {
		code   int
		class  Class
		action Action
		delay  time.Duration
	}{
		{0, ClassClean, ActionPrompt, 0},
		{1, ClassTransient, ActionRestart, 5 * s},
		{1, ClassFlapping, ActionRestart, 90 * s},
	}
	for _, tt := range tests {
		d := run(tr, c, s, tt.code, "")
		if d.Exit.Class != tt.class || d.Action != tt.action || d.Delay != tt.delay {
			t.Fatalf("code %d: class %s action %s delay %v; want %s %s %v",
				tt.code, d.Exit.Class, d.Action, d.Delay, tt.class, tt.action, tt.delay)
		}
	}
}

func TestHaltAfterOne(t *testing.T) {
	tr := NewTracker(Policy{HaltAfter: 1})
	d := tr.Exited(1, "", time.Unix(0, 0))
	if d.Action != ActionHalt || d.Health != Halted || d.Delay != 0 {
		t.Fatalf("HaltAfter 1: %+v", d)
	}
}

func TestExitedWithoutStarted(t *testing.T) {
	// Without Started the uptime is unknown and never counts as stable.
	tr := NewTracker(Policy{})
	c := newClock()
	for range 3 {
		tr.Exited(1, "", c.advance(2*time.Minute))
	}
	if tr.ConsecutiveFailures() != 3 {
		t.Fatalf("consec = %d, want 3", tr.ConsecutiveFailures())
	}
}

func TestClassFailed(t *testing.T) {
	for c, want := range map[Class]bool{ClassClean: false, ClassTransient: true, ClassFlapping: true} {
		if c.Failed() != want {
			t.Fatalf("%s.Failed() = %v", c, !want)
		}
	}
}
