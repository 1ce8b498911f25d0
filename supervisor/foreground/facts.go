package foreground

import (
	"fmt"
	"time"
)

// Wait says what the foreground group is blocked in.
type Wait int

// The kinds of Wait.
const (
	// Unknown: /proc would not say (permissions, no such process).
	Unknown Wait = iota
	// Reading: a task is blocked reading the terminal: the program waits
	// for the human.
	Reading
	// Working: no task reads the terminal: it runs, sleeps or waits for
	// something other than the human.
	Working
)

func (w Wait) String() string {
	switch w {
	case Reading:
		return "reading"
	case Working:
		return "working"
	default:
		return "unknown"
	}
}

// Facts is one sample of the foreground process group.
type Facts struct {
	Pgrp int  // the foreground process group; 0 when none could be read
	Wait Wait // what it is blocked in
	// Task is the task the verdict rests on (the reader, or the first
	// task that was not reading) and Call what it was doing: "read fd 0",
	// "pselect6", "running", "wchan do_wait"… for `sup explain` and logs.
	Task int
	Call string
}

// Verdict is Decide's answer: an activity for the tracker, with the reason
// and rule it reports.
type Verdict struct {
	Busy   bool
	Reason string // "working" or "idle"
	Rule   string // "output:recent", "foreground:reading", "foreground:working", "foreground:unknown"
	Detail string
}

// Decide applies the rule of the package doc. lastOutput is the child's
// last output (zero: none yet); window is the busy window (default 1 s).
func Decide(f Facts, lastOutput, now time.Time, window time.Duration) Verdict {
	if window <= 0 {
		window = DefaultBusyWindow
	}
	if !lastOutput.IsZero() && now.Sub(lastOutput) < window {
		return Verdict{Busy: true, Reason: "working", Rule: RuleRecentOutput,
			Detail: fmt.Sprintf("output %s ago (busy window %s)", now.Sub(lastOutput).Round(time.Millisecond), window)}
	}
	detail := fmt.Sprintf("pgrp %d task %d: %s", f.Pgrp, f.Task, f.Call)
	switch f.Wait {
	case Reading:
		return Verdict{Reason: "idle", Rule: RuleReading, Detail: detail}
	case Working:
		return Verdict{Busy: true, Reason: "working", Rule: RuleWorking, Detail: detail}
	default:
		// Quiet and unreadable: say busy, never ready: ready invites a
		// trigger to type into a program that may not be reading.
		return Verdict{Busy: true, Reason: "working", Rule: RuleUnknown, Detail: detail}
	}
}

// The rules Decide names.
const (
	RuleRecentOutput = "output:recent"
	RuleReading      = "foreground:reading"
	RuleWorking      = "foreground:working"
	RuleUnknown      = "foreground:unknown"
)

// DefaultBusyWindow is how recent output must be to count as work.
const DefaultBusyWindow = time.Second
