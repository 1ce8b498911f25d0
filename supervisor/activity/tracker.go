package activity

import "time"

// Config holds the tracker's tunable numbers.
type Config struct {
	// HookHold is how long a hook's word stands against lower-ranked
	// signals that disagree. Hooks are exact but not complete (an Esc at a
	// permission prompt fires none), so the screen may correct them after
	// this long. Default 3s.
	HookHold time.Duration
	// QuietWindow: the operator is busy while keys arrived within it.
	// Default 20s (specs/detection.md, "Operator input").
	QuietWindow time.Duration
	// UnknownAfter: a running agent's screen that no rule reads and that
	// stayed quiet this long is a question (Tracker.Unrecognized).
	// Default DefaultUnknownAfter (3s).
	UnknownAfter time.Duration
}

func (c Config) withDefaults() Config {
	if c.HookHold <= 0 {
		c.HookHold = DefaultHookHold
	}
	if c.QuietWindow <= 0 {
		c.QuietWindow = 20 * time.Second
	}
	if c.UnknownAfter <= 0 {
		c.UnknownAfter = DefaultUnknownAfter
	}
	return c
}

// DefaultHookHold is Config.HookHold's default.
const DefaultHookHold = 3 * time.Second

// Tracker holds one session's activity. Not safe for concurrent use: the
// supervisor guards it.
type Tracker struct {
	cfg       Config
	state     State
	lastKey   time.Time
	running   bool      // a child runs: spawned, no exit, crash or halt since
	spawnedAt time.Time // the last spawn
	// keyReverted: a key undid the fallback and nobody published it yet.
	keyReverted bool
	// released: the human pressed a key that may end the turn or answer
	// the prompt (Esc, Ctrl-C, Enter, an option) since the state was set:
	// the hook's hold no longer stands, because Claude Code fires no hook
	// for an interrupt or for a prompt answered in the pane.
	released bool
	last     [SourceLifecycle + 1]Signal // the last signal of each source, applied or not (Explain)
	stall    stall                       // real progress, for Stall
	word     string                      // LastWord
}

// NewTracker returns a tracker in Unknown.
func NewTracker(cfg Config) *Tracker {
	return &Tracker{cfg: cfg.withDefaults(), state: State{Activity: Unknown}}
}

// Observe applies a signal and reports whether the activity, reason or
// summary changed. A signal from a lower-ranked source that contradicts a
// recent higher-ranked one is ignored until the higher one is HookHold old;
// lifecycle signals (exit, spawn, halt) always apply.
func (t *Tracker) Observe(s Signal) bool {
	defer t.noteWord()
	t.noteLifecycle(s)
	if s.Source > 0 && s.Source <= SourceLifecycle {
		t.last[s.Source] = s
	}
	cur := t.state
	if s.Source == SourceHook {
		t.stall.at, t.stall.what = s.At, s.Rule // a hook is progress
	}
	if cur.Rule == StallRule && s.Activity == Busy && s.Source < SourceHook {
		// The spinner's busy again and again is what a stall looks like:
		// only progress (Stall, Progress) or a hook lifts it.
		return false
	}
	if s.Source < cur.Source && s.Source != SourceLifecycle && cur.Source != SourceLifecycle &&
		s.At.Sub(cur.Since) < t.cfg.HookHold && s.Activity != cur.Activity && !t.released {
		return false
	}
	if s.Activity == cur.Activity && s.Stuck == cur.Stuck {
		// Same news. A lower-ranked witness never replaces the details
		// of a better one (the screen knows a prompt is up; the hook
		// knows which command it is about).
		switch {
		case s.Source < cur.Source:
			return false
		case s.Generic && cur.Summary != "":
			// A restatement of the same prompt (Claude's Notification
			// ~5 s after PermissionRequest): the command stays.
			return false
		case s.Reason != cur.Reason || s.Summary != cur.Summary || s.Detail != cur.Detail:
			// Detail too: `ls\ncurl … | sh` after `ls\nmake` is another
			// command with the same first line.
			t.state.Reason, t.state.Summary, t.state.Detail = s.Reason, s.Summary, s.Detail
			t.state.Source, t.state.Rule = s.Source, s.Rule
			if s.Source >= SourceHook && (cur.Source >= SourceHook || !Prompting(cur.Activity, cur.Reason)) {
				// The agent itself reports a new prompt: a new stuck
				// event, which ends a skip's cooldown, and a new prompt.
				// A hook after the screen's word on an open prompt is the
				// same dialog told better (under load Claude's PermissionRequest comes
				// after the dialog is drawn): its id stays (issue 22,
				// "one prompt, one id").
				t.state.SkipUntil = time.Time{}
				if Prompting(s.Activity, s.Reason) {
					t.state.PromptSince = s.At
				}
			}
			if !Prompting(s.Activity, s.Reason) {
				t.state.PromptSince = time.Time{} // the question was answered, or another turn ended
			}
			return true
		default:
			t.state.Source, t.state.Rule = s.Source, s.Rule
			return false
		}
	}
	t.become(s)
	return true
}

// become makes s the state: a new activity, or the same one from another
// witness. SkipUntil stays zero: a change of activity is progress or a new
// stuck event, and either ends a skip's cooldown.
func (t *Tracker) become(s Signal) {
	cur := t.state
	next := State{
		Activity:     s.Activity,
		Reason:       s.Reason,
		Summary:      s.Summary,
		Detail:       s.Detail,
		Source:       s.Source,
		Rule:         s.Rule,
		Stuck:        s.Stuck,
		Since:        cur.Since,
		WaitingSince: cur.WaitingSince,
		PromptSince:  cur.PromptSince,
	}
	if s.Activity != cur.Activity {
		next.Since = s.At
	}
	switch {
	case !Prompting(s.Activity, s.Reason):
		next.PromptSince = time.Time{}
	case !Prompting(cur.Activity, cur.Reason) || next.PromptSince.IsZero():
		next.PromptSince = s.At
	}
	switch {
	case !s.Stuck:
		next.WaitingSince = time.Time{}
	case !cur.Stuck || next.WaitingSince.IsZero():
		// Newly stuck. Stuck → stuck (ready → a permission prompt) keeps
		// its place in the queue: the human has not acted in between.
		next.WaitingSince = s.At
	}
	t.state = next
	t.released = false
}

// LastWord is the agent's last word: the summary of the last state that
// was not busy and had one (a finished turn's last message, a prompt's
// command or question). A busy spell, or a screen that reads ready with
// no summary, does not change it: the loop guard's progress is a new
// word, not the activity going round (specs/triggers.md, "Loop guard").
func (t *Tracker) LastWord() string { return t.word }

func (t *Tracker) noteWord() {
	if t.state.Activity != Busy && t.state.Summary != "" {
		t.word = t.state.Summary
	}
}

// Skip moves a stuck session to the queue's tail (waiting_since = now) and
// keeps it from being head until now+cooldown. It reports false, changing
// nothing, when the session is not stuck.
func (t *Tracker) Skip(now time.Time, cooldown time.Duration) (State, bool) {
	if !t.state.Stuck {
		return t.State(now), false
	}
	t.state.WaitingSince = now
	t.state.SkipUntil = now.Add(cooldown)
	return t.State(now), true
}

// Key records a keystroke from the pane. A key undoes the fallback
// (Unrecognized reports the change).
func (t *Tracker) Key(at time.Time) {
	t.lastKey = at
	t.keyOnFallback(at)
}

// Release records a key that may end the turn or answer the prompt: the
// next signal that disagrees applies even within the hook's hold.
func (t *Tracker) Release(at time.Time) {
	t.Key(at)
	t.ReleaseHold()
}

// ReleaseHold is Release for keys sup typed (an answer): the hook's hold
// ends as for the human's key, but it is not the human typing, so the
// operator's quiet window does not restart.
func (t *Tracker) ReleaseHold() {
	if t.state.Activity == Busy || t.state.Activity == NeedsConfirmation {
		t.released = true
	}
}

// State returns the state at now.
func (t *Tracker) State(now time.Time) State {
	st := t.state
	st.LastInputAt = t.lastKey
	st.OperatorBusy = !t.lastKey.IsZero() && now.Sub(t.lastKey) < t.cfg.QuietWindow
	return st
}

// Last returns the last signal each source sent, applied or not, in rank
// order (model, then screen); a source that sent none is left out. It is what
// `explain` shows besides the state.
func (t *Tracker) Last() []Signal {
	var out []Signal
	for _, s := range t.last[SourceModel:] {
		if s.Source != 0 {
			out = append(out, s)
		}
	}
	return out
}

// QuietWindow is the configured window (defaults applied) within which
// a key makes the operator busy: State's OperatorBusy, for a reader that
// computes it from LastInputAt at its own now.
func (t *Tracker) QuietWindow() time.Duration { return t.cfg.QuietWindow }
