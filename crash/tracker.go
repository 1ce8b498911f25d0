package crash

import "time"

// Health is the supervisor's view of how the child is doing.
type Health string

// The health states.
const (
	// Healthy is the starting state, and the state after a stable run or
	// a Resume.
	Healthy Health = "healthy"
	// Degraded is entered when an exit is classified flapping; a stable
	// run returns it to Healthy.
	Degraded Health = "degraded"
	// Halted is entered on the Policy.HaltAfter-th consecutive failure.
	// It is sticky: only [Tracker.Resume] leaves it.
	Halted Health = "halted"
)

// Action is what the supervisor should do after an exit.
type Action string

// The actions.
const (
	// ActionPrompt asks the human whether to restart ("Enter to restart,
	// q to quit"); it follows a clean exit.
	ActionPrompt Action = "prompt"
	// ActionRestart restarts the child after [Decision.Delay].
	ActionRestart Action = "restart"
	// ActionHalt stops restarting until [Tracker.Resume].
	ActionHalt Action = "halt"
)

// Exit records one child exit.
type Exit struct {
	// Code is the exit code.
	Code int
	// Signal names the signal that ended the child, such as "SIGKILL",
	// or is "" if it exited on its own.
	Signal string
	// Class is how the exit was classified.
	Class Class
	// At is when the exit was observed.
	At time.Time
}

// Decision is the outcome of one exit, as returned by [Tracker.Exited].
type Decision struct {
	// Exit is the exit as recorded in the history.
	Exit Exit
	// Action is what the supervisor should do next.
	Action Action
	// Delay is how long to wait before restarting; it is zero unless
	// Action is ActionRestart.
	Delay time.Duration
	// Health is the health after this exit.
	Health Health
	// ConsecutiveFailures is the consecutive-failure count after this
	// exit.
	ConsecutiveFailures int
}

// Tracker applies a [Policy] to the sequence of a child's starts and exits.
// The zero value is not usable; create one with [NewTracker].
type Tracker struct {
	policy  Policy
	health  Health
	consec  int
	flaps   flapDetector
	history ring

	running   bool      // Started called with no Exited since
	startedAt time.Time // valid while running
}

// NewTracker returns a healthy Tracker with no history that applies p, its
// zero fields replaced by defaults. It panics if p.Validate reports an
// error, as a bad policy is a programming or configuration error the caller
// should have caught with [Policy.Validate].
func NewTracker(p Policy) *Tracker {
	if err := p.Validate(); err != nil {
		panic(err)
	}
	p = p.WithDefaults()
	return &Tracker{
		policy:  p,
		health:  Healthy,
		flaps:   flapDetector{window: p.FlapWindow, threshold: p.FlapThreshold},
		history: newRing(p.HistorySize),
	}
}

// Policy returns the policy in effect, with defaults filled in.
func (t *Tracker) Policy() Policy { return t.policy }

// Started records that the child was spawned at at. Its run counts as
// stable once it has been up for Policy.StableAfter.
func (t *Tracker) Started(at time.Time) {
	t.running = true
	t.startedAt = at
}

// StableAt reports when the running child's run will count as stable, so
// the supervisor can set a timer and call [Tracker.CheckStable]. It
// reports false if no child is running.
func (t *Tracker) StableAt() (time.Time, bool) {
	if !t.running {
		return time.Time{}, false
	}
	return t.startedAt.Add(t.policy.StableAfter), true
}

// CheckStable reports whether the running child has been up for at least
// Policy.StableAfter at at, and if so applies the stable-run reset: the
// consecutive-failure count goes to 0, earlier failures stop counting
// toward flapping, and Degraded returns to Healthy. Halted is not changed.
// Calling it again is harmless. [Tracker.Exited] makes the same check, so
// calling CheckStable is optional; it lets health recover while the child
// is still running.
func (t *Tracker) CheckStable(at time.Time) bool {
	if !t.running || at.Sub(t.startedAt) < t.policy.StableAfter {
		return false
	}
	t.stable()
	return true
}

// stable applies the stable-run reset, unless halted.
func (t *Tracker) stable() {
	if t.health == Halted {
		return
	}
	t.consec = 0
	t.flaps.reset()
	t.health = Healthy
}

// Exited records that the child exited at at with the given code and
// signal ("" if none), and decides what to do next. A run that lasted
// Policy.StableAfter since [Tracker.Started] first gets the stable-run
// reset (see [Tracker.CheckStable]). The exit is then classified and
// added to the history.
//
// A clean exit resets the consecutive-failure count and yields
// ActionPrompt. A failure increments the count; if the count reaches
// Policy.HaltAfter, health becomes Halted and the action is ActionHalt;
// otherwise the action is ActionRestart with TransientDelay or, for a
// flapping failure, FlappingDelay, and a flapping failure makes health
// Degraded. While halted, every exit yields ActionHalt, health stays
// Halted and only failures change the count (it still grows).
func (t *Tracker) Exited(code int, signal string, at time.Time) Decision {
	if t.running && at.Sub(t.startedAt) >= t.policy.StableAfter {
		t.stable()
	}
	t.running = false

	e := Exit{Code: code, Signal: signal, Class: ClassClean, At: at}
	if isFailure(code, signal) {
		e.Class = ClassTransient
		if t.flaps.fail(at) {
			e.Class = ClassFlapping
		}
		t.consec++
	} else if t.health != Halted {
		t.consec = 0
	}
	t.history.add(e)

	d := Decision{Exit: e}
	switch {
	case t.health == Halted:
		d.Action = ActionHalt
	case e.Class.Failed() && t.consec >= t.policy.HaltAfter:
		t.health = Halted
		d.Action = ActionHalt
	case e.Class == ClassFlapping:
		t.health = Degraded
		d.Action = ActionRestart
		d.Delay = t.policy.FlappingDelay
	case e.Class == ClassTransient:
		d.Action = ActionRestart
		d.Delay = t.policy.TransientDelay
	default:
		d.Action = ActionPrompt
	}
	d.Health = t.health
	d.ConsecutiveFailures = t.consec
	return d
}

// Resume clears a halt at at: health becomes Healthy, the
// consecutive-failure count 0, and failures before at stop counting toward
// flapping, so the next child gets a fresh start. The history is kept.
// Resume may be called in any state.
func (t *Tracker) Resume(at time.Time) {
	t.health = Healthy
	t.consec = 0
	t.flaps.forgetBefore(at)
}

// Health returns the current health.
func (t *Tracker) Health() Health { return t.health }

// ConsecutiveFailures returns the number of failure exits since the last
// clean exit, stable run or Resume.
func (t *Tracker) ConsecutiveFailures() int { return t.consec }

// History returns a copy of the last Policy.HistorySize exits, oldest
// first.
func (t *Tracker) History() []Exit { return t.history.list() }

// Last returns the most recent exit, or false if there has been none.
func (t *Tracker) Last() (Exit, bool) { return t.history.last() }
