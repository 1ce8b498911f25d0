//go:build linux

package supervisor

import (
	"time"

	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/classify"
	"github.com/sup-tmux/sup/supervisor/foreground"
	"github.com/sup-tmux/sup/supervisor/proc"
	"github.com/sup-tmux/sup/supervisor/screen"
)

const (
	// classifyEvery throttles classification while the screen changes
	// quickly (a TUI repainting at 60 fps): a snapshot and the rules cost
	// about 0.1 ms, so this keeps them far below 1% of a core.
	classifyEvery = 50 * time.Millisecond
	// frameRetry waits out a half-drawn synchronized frame.
	frameRetry = 20 * time.Millisecond
)

// watchScreen classifies the child's screen each time the screen model has
// caught up with the output, until the child ends. needs_confirmation is
// reported at once; ready only once the output has been quiet for the
// debounce, because an agent between two bursts of output looks idle. A
// profile without screen rules is read from its foreground process
// instead (lineVerdict), looked at again while it works quietly.
func (s *Session) watchScreen(c *proc.Child, v *view, pack *classify.Pack, debounce, busyWindow time.Duration) {
	var last time.Time
	// The first look comes without output: a child that prints nothing
	// (a headless cat, a script waiting on input()) is read from its
	// foreground process too; a busy one is looked at again as it works.
	recheck := time.NewTimer(lineRecheckMin)
	defer recheck.Stop()
	quietPoll := lineRecheckMin
	for {
		select {
		case <-v.kick:
			s.desk.Poke() // a delivery waiting for a marker looks now
		case <-recheck.C:
		case <-c.Done():
			return
		}
		if wait := classifyEvery - time.Since(last); wait > 0 {
			recheck.Reset(wait)
			continue
		}
		last = time.Now()
		var res classify.Result
		var at time.Time
		var snap screen.Snapshot
		if v.lineMode {
			// A question the pack's rules read outranks the kernel's
			// word: blocked reading its terminal, the program waits for
			// that answer, not for any line.
			if pack.HasRules() {
				if snap := v.model.Snapshot(); !snap.InFrame {
					if res = pack.Classify(snap); res.Matched {
						at = s.noteScreen(res, pack, snap)
					}
				}
			}
			if !res.Matched {
				var again time.Duration
				res, again = s.lineVerdict(c, busyWindow, &quietPoll)
				at = s.noteScreen(res, nil, screen.Snapshot{})
				if again > 0 {
					recheck.Reset(again)
				}
			}
		} else {
			snap = v.model.Snapshot()
			if snap.InFrame {
				recheck.Reset(frameRetry)
				continue
			}
			res = pack.Classify(snap)
			at = s.noteScreen(res, pack, snap)
			s.setDraft(res.Draft)
			if !res.Matched {
				// The fallback is for packs only (specs/detection.md).
				if wait := s.modelLook(snap, classify.Salient(snap)); wait > 0 {
					recheck.Reset(wait)
				}
				continue
			}
			if res.Activity != activity.NeedsConfirmation {
				s.model.forget() // a rule reads this screen: no reading of it
			}
		}
		if res.Activity == activity.Ready {
			d := debounce
			if s.activityNow() == activity.NeedsConfirmation {
				// From a prompt the screen goes to ready when the prompt
				// was declined; the ready between two bursts of a turn
				// the debounce guards against cannot follow a dialog.
				d = min(d, promptDebounce)
			}
			d = s.afterAnswer(d, s.lastOutputAt())
			quiet := time.Since(s.lastOutputAt())
			if quiet < d {
				recheck.Reset(d - quiet)
				continue
			}
		}
		s.observe(activity.Signal{Source: activity.SourceScreen, Rule: "screen:" + res.Rule, Activity: res.Activity,
			Reason: res.Reason, Summary: res.Summary, Stuck: activity.StuckFor(res.Activity, res.Reason), At: at})
		if !v.lineMode {
			// After the rule's word is in: a dialog without a summary
			// may ask the model for one (model.go).
			if wait := s.modelSummary(snap, res.Activity); wait > 0 {
				recheck.Reset(wait)
			}
		}
	}
}

// promptDebounce is the ready debounce when the activity is
// needs_confirmation: a declined prompt reads ready within a second
// (specs/detection.md, "Hook hold").
const promptDebounce = 250 * time.Millisecond

// afterAnswer shortens a wait on quiet output to promptDebounce when the
// output is the program's reaction to an answer sup typed (the dialog
// clearing, the answer's echo): whether it waits again is due sooner
// than after a burst of its own work (specs/detection.md, "Hook hold").
func (s *Session) afterAnswer(wait time.Duration, lastOut time.Time) time.Duration {
	if ans := s.answeredAt(); !ans.IsZero() && !lastOut.Before(ans) && lastOut.Sub(ans) < wait {
		return min(wait, promptDebounce)
	}
	return wait
}

// activityNow is the tracker's activity.
func (s *Session) activityNow() activity.Activity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.act.State(time.Now()).Activity
}

// How often a program that works without printing is looked at again: from
// lineRecheckMin, doubling to lineRecheckMax while it stays busy. A program
// that waits for the human is not looked at until it prints or a key comes.
const (
	lineRecheckMin = 100 * time.Millisecond
	lineRecheckMax = 2 * time.Second
)

// lineLook is the last look at a line-mode child's foreground group, for
// explain.
type lineLook struct {
	facts   foreground.Facts
	verdict foreground.Verdict
}

// lineVerdict is the rule for a profile without screen rules (specs/
// detection.md, "Any program"): busy while the output is recent or the
// foreground process group is not blocked reading the terminal, ready when
// it is and the output is quiet. again is when to look next (0: not until
// something happens).
func (s *Session) lineVerdict(c *proc.Child, busyWindow time.Duration, poll *time.Duration) (res classify.Result, again time.Duration) {
	now := time.Now()
	lastOut := time.Time{}
	if at := s.lastOutputAt(); !at.Before(c.StartedAt()) {
		lastOut = at
	}
	facts, err := foreground.Sample(c.Master())
	if err != nil {
		facts = foreground.Facts{Wait: foreground.Unknown, Call: err.Error()}
	}
	if busyWindow <= 0 {
		busyWindow = foreground.DefaultBusyWindow
	}
	busyWindow = s.afterAnswer(busyWindow, lastOut)
	v := foreground.Decide(facts, lastOut, now, busyWindow)
	s.mu.Lock()
	s.lastForeground = lineLook{facts, v}
	s.mu.Unlock()
	res = classify.Result{Activity: activity.Ready, Reason: v.Reason, Rule: v.Rule, Matched: true}
	switch {
	case !v.Busy:
		*poll = lineRecheckMin
		return res, 0
	case v.Rule == foreground.RuleRecentOutput:
		*poll = lineRecheckMin
		again = lastOut.Add(busyWindow).Sub(now) + time.Millisecond
	default:
		again = *poll
		*poll = min(2**poll, lineRecheckMax)
	}
	res.Activity = activity.Busy
	return res, again
}

func (s *Session) setDraft(d string) {
	s.mu.Lock()
	changed := s.draft != d
	s.draft = d
	s.mu.Unlock()
	if changed {
		s.desk.Poke() // a deferred trigger may go now
	}
}
