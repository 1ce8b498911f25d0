package activity

import "time"

// The fallback's and the spawn's rule names (Signal.Rule).
const (
	// FallbackRule names the signal of the pack-independent fallback, so
	// a pack author sees which screens no rule reads.
	FallbackRule = "fallback:unrecognized"
	// SpawnRule is the lifecycle signal of a child starting: from it until
	// the next lifecycle signal (exit, crash, halt) an agent runs.
	SpawnRule = "lifecycle:spawn"
	// ProgramRule names the screen signal of a program other than the
	// login shell that reads its terminal with no rule reading its
	// question: ready, its last line as summary, and — with the model
	// reader on — a screen the model may read (specs/detection.md,
	// "Prompts of any program").
	ProgramRule = "screen:program:reading"
)

// DefaultUnknownAfter is how long an unrecognized screen must be quiet
// before the fallback calls it a question (Config.UnknownAfter).
const DefaultUnknownAfter = 3 * time.Second

// Unrecognized is the pack-independent fallback, for a screen no rule of
// the profile's pack matched at now: once the running agent has written
// nothing (and no key came) for UnknownAfter, it waits on something nobody
// wrote a rule for — a new dialog, a notice — so the session becomes
// needs_confirmation, reason unrecognized, summary the screen's salient
// line, rule FallbackRule, and enters the stuck queue. It applies only
// while the activity is unknown (or already the fallback's): any other
// signal — hook, stream, classifier match — has the word, and a key
// (Key) undoes it.
//
// lastOutput is when the child last wrote; the quiet is counted from it,
// the last key or the spawn, whichever is latest. A blank screen (salient
// "") asks nothing. It reports whether the state
// changed (publish it) and, while the fallback is not yet due, how long to
// wait before asking again (0: nothing to wait for).
func (t *Tracker) Unrecognized(now, lastOutput time.Time, salient string) (changed bool, wait time.Duration) {
	return t.UnrecognizedRead(now, lastOutput, salient, nil)
}

// UnrecognizedRead is Unrecognized with the model reader's reading of this
// very screen (nil: none yet): once the fallback is due, the reading
// stands in its place — same quiet, same scope (only while the activity is
// unknown, the fallback's or an earlier reading's). A reading is ranked
// below every source, so a rule, stream signal or hook replaces it, and a
// key undoes it like the fallback.
func (t *Tracker) UnrecognizedRead(now, lastOutput time.Time, salient string, read *Signal) (changed bool, wait time.Duration) {
	changed, t.keyReverted = t.keyReverted, false
	if !t.running || salient == "" {
		// Not running, or a blank screen: nothing asks anything yet.
		return changed, 0
	}
	quietFrom := lastOutput
	for _, at := range []time.Time{t.lastKey, t.spawnedAt} {
		if at.After(quietFrom) {
			quietFrom = at
		}
	}
	if quiet := now.Sub(quietFrom); quiet < t.cfg.UnknownAfter {
		return changed, t.cfg.UnknownAfter - quiet
	}
	if cur := t.state; cur.Activity != Unknown && cur.Rule != FallbackRule && cur.Source != SourceModel && cur.Rule != ProgramRule {
		// Another signal has the word (a hook, a stream signal, a rule):
		// the fallback is for a session sup knows nothing about, not a
		// second opinion on one it does (specs/detection.md, "Fallback").
		return changed, 0
	}
	if read != nil {
		r := *read
		r.Source, r.At = SourceModel, now
		return t.refine(r) || changed, 0
	}
	if t.state.Rule == ProgramRule {
		// A program reading its terminal: ready with its last line until
		// the model reads the screen; the fallback's question is for a
		// screen sup has no word on, and this one has the kernel's.
		return changed, 0
	}
	sig := Signal{Source: SourceScreen, Rule: FallbackRule, Activity: NeedsConfirmation,
		Reason: "unrecognized", Summary: FirstLine(salient), Stuck: true, At: now}
	if t.state.Source == SourceModel {
		// A reading of an earlier screen: this one is the fallback's
		// until the model reads it too.
		return t.refine(sig) || changed, 0
	}
	return t.Observe(sig) || changed, 0
}

// WantsReading reports whether the state is one the model reader may
// read (the fallback's question, a program reading its terminal with no
// rule for its screen) once the screen has been quiet for UnknownAfter
// (UnrecognizedRead said so: it returned no wait). A login shell at its
// prompt never is: nothing there asks anything.
func (t *Tracker) WantsReading() bool {
	return t.state.Source == SourceScreen && (t.state.Rule == FallbackRule || t.state.Rule == ProgramRule)
}

// refine puts s in place of the fallback (or an earlier reading) without
// the ranking of Observe: both are last resorts for the same screen, and a
// reading arriving within the hook hold must still apply. A question that
// stays a question keeps its prompt time and queue place.
func (t *Tracker) refine(s Signal) bool {
	t.last[s.Source] = s
	cur := t.state
	if cur.Activity == s.Activity && cur.Stuck == s.Stuck && cur.Reason == s.Reason &&
		cur.Summary == s.Summary && cur.Rule == s.Rule && cur.Source == s.Source {
		return false
	}
	t.become(s)
	return true
}

// noteLifecycle keeps t.running: an agent runs from its spawn to the next
// lifecycle signal.
func (t *Tracker) noteLifecycle(s Signal) {
	if s.Source == SourceLifecycle {
		t.running = s.Rule == SpawnRule
		if t.running {
			t.spawnedAt = s.At
		}
	}
}

// keyOnFallback undoes the fallback when the human presses a key: they
// answer whatever the screen shows, so it is unknown again until a rule
// (or, after UnknownAfter of quiet, the fallback) reads it.
func (t *Tracker) keyOnFallback(at time.Time) {
	if t.state.Rule != FallbackRule && t.state.Source != SourceModel {
		return
	}
	t.state = State{Activity: Unknown, Source: SourceScreen, Since: at}
	t.keyReverted = true
}
