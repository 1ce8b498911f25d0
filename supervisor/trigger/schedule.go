package trigger

import "time"

// Action is what to do with a queued trigger now.
type Action int

// Actions.
const (
	Deliver Action = iota
	Wait
	Fail
)

// Look is what the supervisor sees when it looks at a queued trigger.
type Look struct {
	Now, Queued  time.Time
	Force        bool
	OperatorBusy bool      // keys within the quiet window, or a draft in the input box
	AgentBusy    bool      // mid-turn, or a prompt (permission, question) is open
	RateUntil    time.Time // non-zero: the thread's rate window is full until then
	// Asked: the agent's finished turn asked the human a question (reason
	// asked). Answering: the caller says this trigger is the answer.
	Asked, Answering bool
}

// Step is the decision for one look.
type Step struct {
	Action Action
	Code   string    // why it waits or fails: OPERATOR_BUSY, TRIGGER_RATE_LIMITED, AGENT_BUSY, AGENT_ASKED, DEFER_TIMEOUT
	Next   time.Time // Wait: when to look again at the latest
	Gate   string    // Deliver: the collision gate (enforced or bypassed)
}

// Decide applies the collision and rate policy to one queued trigger. A
// deferred trigger is looked at again every Recheck and fails with
// DEFER_TIMEOUT once MaxDefer after it was queued; force_override bypasses
// the operator's collision gate only — never the rate limit, and never a
// mid-turn agent or an open prompt (a paste would answer it), for which the
// trigger waits up to MaxBusyWait. A question the agent asked holds a
// trigger that is not its answer (AGENT_ASKED) like a busy agent, up to
// MaxBusyWait, and then fails with AGENT_ASKED (not DEFER_TIMEOUT: the
// caller learns it was a question); a force, which names its reason and is
// audited, delivers it.
func (c Config) Decide(l Look) Step {
	deadline := l.Queued.Add(c.MaxDefer)
	wait := func(code string, next time.Time, limit time.Time) Step {
		if !l.Now.Before(limit) {
			return Step{Action: Fail, Code: "DEFER_TIMEOUT"}
		}
		return Step{Action: Wait, Code: code, Next: earliest(next, limit)}
	}
	switch {
	case !l.RateUntil.IsZero() && l.Now.Before(l.RateUntil):
		return wait("TRIGGER_RATE_LIMITED", l.RateUntil, deadline)
	case l.OperatorBusy && !l.Force:
		return wait("OPERATOR_BUSY", l.Now.Add(c.Recheck), deadline)
	case l.AgentBusy:
		return wait("AGENT_BUSY", l.Now.Add(c.Recheck), l.Queued.Add(c.MaxBusyWait))
	case l.Asked && !l.Answering && !l.Force:
		if limit := l.Queued.Add(c.MaxBusyWait); !l.Now.Before(limit) {
			return Step{Action: Fail, Code: "AGENT_ASKED"}
		}
		return wait("AGENT_ASKED", l.Now.Add(c.Recheck), l.Queued.Add(c.MaxBusyWait))
	}
	gate := GateEnforced
	if l.Force {
		gate = GateBypassed
	}
	return Step{Action: Deliver, Gate: gate}
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// AfterTimeout decides what follows an attempt (1-based) that got no ack:
// another attempt after the backoff, but only while retries remain and only
// when the payload left no trace on the screen (pasting into a live input
// box that still holds it would double it); otherwise ACK_TIMEOUT.
func (c Config) AfterTimeout(attempt int, traceOnScreen bool) (retry bool, backoff time.Duration) {
	if attempt > c.Retries || traceOnScreen {
		return false, 0
	}
	return true, c.Backoff(attempt)
}
