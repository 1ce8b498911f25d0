package crash

import "time"

// Class is the classification of one child exit.
type Class string

// The exit classes.
const (
	// ClassClean is an exit with code 0 and no signal.
	ClassClean Class = "clean"
	// ClassTransient is a failure (non-zero code or a signal) with fewer
	// than Policy.FlapThreshold failures in Policy.FlapWindow, counting
	// itself.
	ClassTransient Class = "transient"
	// ClassFlapping is a failure that is at least the
	// Policy.FlapThreshold-th failure in Policy.FlapWindow, counting
	// itself.
	ClassFlapping Class = "flapping"
)

// Failed reports whether c is a failure class (transient or flapping).
func (c Class) Failed() bool { return c == ClassTransient || c == ClassFlapping }

// isFailure reports whether an exit with this code and signal is a failure:
// any non-zero code, or any signal, even if the code reads 0.
func isFailure(code int, signal string) bool { return code != 0 || signal != "" }

// flapDetector remembers the times of recent failures to decide whether a
// new failure is flapping. It keeps at most threshold times.
type flapDetector struct {
	window    time.Duration
	threshold int
	times     []time.Time
}

// fail records a failure at at and reports whether it is flapping: whether
// at least threshold failures, counting this one, happened less than window
// before at. Times after at (a clock that stepped back) count as recent.
func (f *flapDetector) fail(at time.Time) bool {
	kept := f.times[:0]
	for _, ft := range f.times {
		if at.Sub(ft) < f.window {
			kept = append(kept, ft)
		}
	}
	kept = append(kept, at)
	if len(kept) > f.threshold {
		kept = kept[len(kept)-f.threshold:]
	}
	f.times = kept
	return len(kept) >= f.threshold
}

// reset forgets every recorded failure.
func (f *flapDetector) reset() { f.times = f.times[:0] }

// forgetBefore forgets the failures recorded before at.
func (f *flapDetector) forgetBefore(at time.Time) {
	kept := f.times[:0]
	for _, ft := range f.times {
		if !ft.Before(at) {
			kept = append(kept, ft)
		}
	}
	f.times = kept
}
