package activity

import "time"

// Activity is what the agent is doing, as `state` reports it.
type Activity string

// The activities. Unknown until the first signal.
const (
	Unknown           Activity = "unknown"
	Ready             Activity = "ready"
	Busy              Activity = "busy"
	NeedsConfirmation Activity = "needs_confirmation"
	Error             Activity = "error"
)

// Source says where a signal came from; a higher source outranks a lower.
type Source int

// Sources in rank order.
const (
	// SourceModel is the opt-in model reader's reading of a screen no
	// rule reads: below every other source, so any rule, stream signal
	// or hook has the word over it (specs/detection.md, "The model
	// reader"). It only ever replaces the fallback (Tracker.Unrecognized).
	SourceModel     Source = iota + 1
	SourceScreen           // a classifier rule on the rendered screen
	SourceStream           // OSC title, OSC 9, BEL, OSC 7501 in the output
	SourceHook             // the agent's own hook or notify
	SourceLifecycle        // sup itself: spawn, exit, halt
)

func (s Source) String() string {
	switch s {
	case SourceModel:
		return "model"
	case SourceScreen:
		return "screen"
	case SourceStream:
		return "stream"
	case SourceHook:
		return "hook"
	case SourceLifecycle:
		return "lifecycle"
	}
	return "none"
}

// Signal is one observation.
type Signal struct {
	Source   Source
	Rule     string // what produced it: "hook:Stop", "title:spinner", a pack rule name
	Activity Activity
	Reason   string // display only: permission, stopped, exited, halted, ...
	Summary  string // the command awaiting approval, the last assistant message
	// Detail is the whole of what a prompt asks to approve (every line of
	// the command, at most ipc.MaxPromptDetail): Summary is its first
	// line. Only an agent's own permission hook knows it.
	Detail string
	Stuck  bool // the session now waits on the human (see Stuck)
	// Generic marks a report that restates a prompt without its details
	// (Claude's permission Notification: "Claude needs your permission"):
	// it never replaces a specific summary of the same prompt.
	Generic bool
	At      time.Time
}

// State is the tracker's view at one moment.
type State struct {
	Activity     Activity
	Reason       string
	Summary      string
	Detail       string // see Signal.Detail
	Source       Source
	Rule         string
	Since        time.Time // when Activity last changed
	Stuck        bool
	WaitingSince time.Time // when the session became stuck; zero while not stuck
	// PromptSince is when the open prompt appeared: set when the activity
	// becomes needs_confirmation, or ready because the turn asked a
	// question (Prompting), or the agent's own hook reports another
	// prompt; zero while no prompt is open. Part of the prompt's identity
	// (PromptID).
	PromptSince  time.Time
	SkipUntil    time.Time // the human skipped it: not eligible as queue head before this
	LastInputAt  time.Time
	OperatorBusy bool // keys within the quiet window
}

// Prompting reports whether an agent showing a for reason has a prompt
// open that `answer` answers: a dialog, or a finished turn that asked the
// human a question (its answer is typed as the next turn,
// specs/triggers.md "Answers").
func Prompting(a Activity, reason string) bool {
	return a == NeedsConfirmation || a == Ready && reason == ReasonAsked
}

// Stuck reports whether an agent showing a waits on the human: a finished
// turn or a prompt. Why it waits never matters for the queue. Lifecycle
// signals say it themselves: a halted session (activity error) is stuck, a
// child sup is about to restart is not.
func Stuck(a Activity) bool { return a == Ready || a == NeedsConfirmation }

// StuckFor is Stuck for a signal that names its reason: an error ended
// the turn (an API error, a rate limit, a StopFailure hook) and the agent
// waits on the human like a finished turn, unless it says it is retrying
// by itself (reason retrying).
func StuckFor(a Activity, reason string) bool {
	return Stuck(a) || (a == Error && reason != ReasonRetrying)
}

// ReasonRetrying is the reason of an error the agent retries by itself.
const ReasonRetrying = "retrying"
