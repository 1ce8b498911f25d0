package activity

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"
)

// The stall's names (specs/detection.md, "Stalled").
const (
	// StallRule is the rule of a stalled state.
	StallRule = "stall:no-progress"
	// ReasonStalled: busy, but nothing real happened for the profile's
	// stall_after; it waits on the human.
	ReasonStalled = "stalled"
	// ProgressRule is the rule of the busy state a stall returns to when
	// something real happens.
	ProgressRule = "stall:progress"
)

// StatusLines are a pack's patterns of the agent's own spinner and status
// lines (the profile's status_lines): their changes are not progress.
type StatusLines []*regexp.Regexp

// CompileStatus compiles a profile's status_lines; the error names the
// pattern.
func CompileStatus(patterns []string) (StatusLines, error) {
	out := make(StatusLines, 0, len(patterns))
	for i, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("status_lines[%d] %q: %v", i, p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// Status is the first status line of text, trimmed: what the agent says
// it is doing ("" when none shows).
func (s StatusLines) Status(text string) string { return s.lines(text, func(string) {}) }

// lines calls f with each line of text that is neither a status line
// (so a spinner's elapsed time and token counter are nothing) nor blank,
// without its trailing blanks, and returns the first status line. Blank
// lines are left out because a status line coming or going moves them
// (Claude Code's focus-events notice and its tips appear seconds into a
// turn).
func (s StatusLines) lines(text string, f func(string)) (status string) {
	for _, line := range strings.Split(text, "\n") {
		if s.match(line) {
			if status == "" {
				status = strings.TrimSpace(line)
			}
			continue
		}
		if line = strings.TrimRight(line, " \t"); line != "" {
			f(line)
		}
	}
	return status
}

func (s StatusLines) match(line string) bool {
	for _, re := range s {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}

// Lines reads the screens a stall watch looks at in turn into the
// fingerprint Tracker.Stall takes. Progress is a line that was not there:
// a line of the screen (not a status line, not blank: StatusLines.lines)
// that two looks in a row show and that was not seen before (on the first
// look, or on two looks in a row since). Lines that go away are not
// progress, nor lines that come back: under load a frame redrawn without
// synchronized output can stay half drawn for two looks (CI: Claude
// Code's spinner screen lost lines for 200 ms, which lifted a stall with
// no line new), and its completion only brings back lines already seen.
// The fingerprint is a hash of the set of lines seen, so it changes
// exactly when one is added. Not safe for concurrent use.
type Lines struct {
	status StatusLines
	seen   map[string]bool // lines two looks in a row showed
	prev   map[string]bool // the last look's lines; nil before the first
	fp     uint64
}

// maxSeenLines bounds Lines' memory (about 100 KB a session): past it the
// set starts again from the screen (one change of the fingerprint, at a
// time of real output).
const maxSeenLines = 1024

// NewLines returns a Lines reading screens with status.
func NewLines(status StatusLines) *Lines {
	return &Lines{status: status, seen: map[string]bool{}}
}

// Look reads text, the screen now, and returns the fingerprint to pass to
// Tracker.Stall, the first status line (what the agent is doing, "" when
// none shows), and the first line it added ("" when none).
func (l *Lines) Look(text string) (fp uint64, status, added string) {
	cur := make(map[string]bool, len(l.prev))
	status = l.status.lines(text, func(line string) { cur[line] = true })
	if len(l.seen) > maxSeenLines {
		clear(l.seen)
	}
	first := l.prev == nil // the first look is where the watch starts from
	for line := range cur {
		if (first || l.prev[line]) && !l.seen[line] {
			l.seen[line] = true
			l.fp += lineHash(line) // a sum: the set's hash, in any order
			if !first && (added == "" || line < added) {
				added = line
			}
		}
	}
	l.prev = cur
	return l.fp, status, added
}

func lineHash(line string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(line)) // hash.Hash never fails.
	return h.Sum64()
}

// stall is the tracker's record of real progress.
type stall struct {
	at     time.Time // the last real progress
	what   string    // what it was: "hook:PreToolUse", "screen"
	screen uint64    // the last screen fingerprint that held
	seen   bool      // screen holds one
	// changedAt is when a look first saw a fingerprint other than
	// screen (zero: the last look saw screen). A change is progress only
	// if the next look does not show screen again: one look at a frame
	// written in two reads (no synchronized output) is no progress.
	changedAt time.Time
}

// Progress records something real at at (what: "hook:PostToolUse",
// "screen"): a stalled session is busy again. It reports whether the state
// changed.
func (t *Tracker) Progress(at time.Time, what string) bool {
	t.stall.at, t.stall.what = at, what
	if t.state.Rule != StallRule {
		return false
	}
	t.state = State{Activity: Busy, Reason: "working", Source: SourceScreen, Rule: ProgressRule, Since: t.state.Since}
	t.released = false
	return true
}

// LastProgress is when the last real progress was seen and what it was
// (zero before any): explain shows it.
func (t *Tracker) LastProgress() (time.Time, string) { return t.stall.at, t.stall.what }

// Stall looks for a stall at now. screen is the fingerprint of the screen
// outside its status lines (StatusLines.Fingerprint; a change that the
// next look does not take back is progress, dated when first seen);
// doing is the summary a stall shows (the tool the agent runs, else its
// status line). A running session that has been busy with no progress for
// after becomes reason stalled, rule StallRule, and waits on the human
// (Stuck, WaitingSince now), activity still busy: a trigger still waits
// for it. after <= 0 turns it off. It reports whether the state changed and
// how long until a stall is due (0: none is).
func (t *Tracker) Stall(now time.Time, after time.Duration, screen uint64, doing string) (changed bool, wait time.Duration) {
	switch {
	case !t.stall.seen:
		t.stall.screen, t.stall.seen = screen, true
	case screen == t.stall.screen:
		t.stall.changedAt = time.Time{} // a blip: the screen is back
	case t.stall.changedAt.IsZero():
		t.stall.changedAt = now // progress if the next look agrees
	default:
		at := t.stall.changedAt
		t.stall.screen, t.stall.changedAt = screen, time.Time{}
		changed = t.Progress(at, "screen")
	}
	cur := t.state
	if after <= 0 || !t.running || cur.Activity != Busy || cur.Rule == StallRule {
		return changed, 0
	}
	from := cur.Since
	if t.stall.at.After(from) {
		from = t.stall.at
	}
	if quiet := now.Sub(from); quiet < after {
		return changed, after - quiet
	}
	if doing == "" {
		doing = "busy since " + from.Format("15:04:05") + ", no progress since"
	}
	t.state = State{Activity: Busy, Reason: ReasonStalled, Summary: FirstLine(doing), Source: SourceScreen, Rule: StallRule,
		Since: cur.Since, Stuck: true, WaitingSince: now}
	return true, 0
}
