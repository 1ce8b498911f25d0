package crash

import (
	"errors"
	"fmt"
	"time"
)

// Default values used for any zero field of a [Policy].
const (
	DefaultFlapWindow     = 60 * time.Second
	DefaultFlapThreshold  = 3
	DefaultTransientDelay = 2 * time.Second
	DefaultFlappingDelay  = 30 * time.Second
	DefaultStableAfter    = 60 * time.Second
	DefaultHaltAfter      = 5
	DefaultHistorySize    = 10
)

// Policy holds the tunable numbers of the crash rules. A zero field means
// "use the default" (the Default* constants); negative values are invalid.
type Policy struct {
	// FlapWindow is how far back failures are counted when deciding
	// whether a failure is flapping. A failure counts if it happened less
	// than FlapWindow before the current one. Default 60s.
	FlapWindow time.Duration

	// FlapThreshold is how many failures within FlapWindow, counting the
	// current one, make the current failure flapping. Default 3.
	FlapThreshold int

	// TransientDelay is the wait before restarting after a transient
	// failure. Default 2s.
	TransientDelay time.Duration

	// FlappingDelay is the wait before restarting after a flapping
	// failure. Default 30s.
	FlappingDelay time.Duration

	// StableAfter is how long a child must stay up for its run to count as
	// stable, which resets the consecutive-failure count and returns
	// health from degraded to healthy. Default 60s.
	StableAfter time.Duration

	// HaltAfter is the number of consecutive failures that halts
	// restarting. Default 5.
	HaltAfter int

	// HistorySize is how many exits the ring buffer keeps. Default 10.
	HistorySize int
}

// DefaultPolicy returns the policy with every field set to its default.
func DefaultPolicy() Policy {
	return Policy{
		FlapWindow:     DefaultFlapWindow,
		FlapThreshold:  DefaultFlapThreshold,
		TransientDelay: DefaultTransientDelay,
		FlappingDelay:  DefaultFlappingDelay,
		StableAfter:    DefaultStableAfter,
		HaltAfter:      DefaultHaltAfter,
		HistorySize:    DefaultHistorySize,
	}
}

// WithDefaults returns a copy of p with every zero field replaced by its
// default. Negative fields are left alone; use [Policy.Validate] to find
// them.
func (p Policy) WithDefaults() Policy {
	d := DefaultPolicy()
	if p.FlapWindow == 0 {
		p.FlapWindow = d.FlapWindow
	}
	if p.FlapThreshold == 0 {
		p.FlapThreshold = d.FlapThreshold
	}
	if p.TransientDelay == 0 {
		p.TransientDelay = d.TransientDelay
	}
	if p.FlappingDelay == 0 {
		p.FlappingDelay = d.FlappingDelay
	}
	if p.StableAfter == 0 {
		p.StableAfter = d.StableAfter
	}
	if p.HaltAfter == 0 {
		p.HaltAfter = d.HaltAfter
	}
	if p.HistorySize == 0 {
		p.HistorySize = d.HistorySize
	}
	return p
}

// Validate reports every invalid field of p, or nil if p is usable. Zero
// fields are valid (they mean the default); negative durations and counts
// are not. The error names each bad field, one per line.
func (p Policy) Validate() error {
	var errs []error
	dur := func(name string, v time.Duration) {
		if v < 0 {
			errs = append(errs, fmt.Errorf("crash: Policy.%s must not be negative (got %v)", name, v))
		}
	}
	count := func(name string, v int) {
		if v < 0 {
			errs = append(errs, fmt.Errorf("crash: Policy.%s must be at least 1, or 0 for the default (got %d)", name, v))
		}
	}
	dur("FlapWindow", p.FlapWindow)
	count("FlapThreshold", p.FlapThreshold)
	dur("TransientDelay", p.TransientDelay)
	dur("FlappingDelay", p.FlappingDelay)
	dur("StableAfter", p.StableAfter)
	count("HaltAfter", p.HaltAfter)
	count("HistorySize", p.HistorySize)
	return errors.Join(errs...)
}
