package screen

import "time"

// Hold is the rule that nothing is read from a desynced screen (specs/
// screen.md, "Classification waits for a whole screen"): after a gap the
// grid may show what lost bytes erased or lack what they drew — a dialog
// already answered, an input box a flood scrolled away — so a verdict read
// from it could be false. The reader asks Look before each classification;
// a desynced snapshot is held back until the model is whole again (a
// clearing event or a replayed tail, see Model), which it learns at the
// next look the model's OnIdle asks for. No timer: the screen only
// becomes whole by applying output, and each applied batch ends in OnIdle.
//
// Hold is not safe for concurrent use; one reader owns it. The clock is
// the caller's (now), so tests are instant.
type Hold struct {
	since  time.Time // when the current hold began; zero: not holding
	offset int64     // the stream offset at the hold's first look
}

// Look reports whether snap may be classified at now. began is true at
// the first held look of a hold (the moment to log it); held is how long
// a hold that this look ends lasted (0 when no hold ended).
func (h *Hold) Look(snap Snapshot, now time.Time) (ok, began bool, held time.Duration) {
	if snap.Desynced {
		if h.since.IsZero() {
			h.since, h.offset = now, snap.Offset
			return false, true, 0
		}
		return false, false, 0
	}
	if !h.since.IsZero() {
		held = max(now.Sub(h.since), time.Nanosecond) // a hold ended, however short
		h.since = time.Time{}
	}
	return true, false, held
}

// Holding reports whether a hold is on, since when, and the stream offset
// of its first look.
func (h *Hold) Holding() (on bool, since time.Time, offset int64) {
	return !h.since.IsZero(), h.since, h.offset
}
