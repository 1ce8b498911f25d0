//go:build linux

package supervisor

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/supervisor/activity"
)

// crashEpisode is a crash loop waiting on the human (specs/crash.md,
// "A crash waits on you"): from the first failed exit until a run counts
// as stable, a clean exit, or the human resumes. Its agent may be up
// between crashes, busy starting, which waits on nobody; the episode
// waits on the human all along, at its first failure's place in the
// queue, so the queue, the status line and the notifier see it once.
type crashEpisode struct {
	since   time.Time // the episode's first failure; zero: none
	summary string    // the last exit's class and the agent's last line before it
	reason  string    // restarting, halted (the lifecycle's), or crashed (its agent runs again)
}

// crashed starts an episode at at, or updates the running one: reason is
// the lifecycle the exit led to (restarting, halted).
func (a *agentFacts) crashed(at time.Time, reason, summary string) {
	if a.crash.since.IsZero() {
		a.crash.since = at
	}
	a.crash.reason, a.crash.summary = reason, summary
}

// crashRespawned notes that a new agent runs during the episode.
func (a *agentFacts) crashRespawned() {
	if !a.crash.since.IsZero() {
		a.crash.reason = "crashed"
	}
}

// crashOver ends the episode; it reports whether one was running.
func (a *agentFacts) crashOver() bool {
	was := !a.crash.since.IsZero()
	a.crash = crashEpisode{}
	return was
}

// present is st as the queue sees it: during a crash episode
// the session waits on the human since the episode began, with the crash
// as reason and summary unless the agent itself says why it waits. Between
// runs (restarting, halted) the episode's reason wins whatever the last
// look at the dead agent's screen said, and the activity is error.
func (a *agentFacts) present(st activity.State) activity.State {
	c := a.crash
	if c.since.IsZero() {
		return st
	}
	if c.reason != "crashed" {
		// No agent runs: what the screen shows now is sup's own countdown
		// ("restarting in 28s"), whose output read as busy (a new user's
		// crash-looping program showed busy in sup ls). The crash is the
		// session's activity.
		st.Activity = activity.Error
	}
	if !st.Stuck || c.reason != "crashed" {
		st.Stuck, st.WaitingSince, st.Reason, st.Summary = true, c.since, c.reason, c.summary
		return st
	}
	if st.WaitingSince.IsZero() || st.WaitingSince.After(c.since) {
		st.WaitingSince = c.since
	}
	if st.Summary == "" {
		st.Summary = c.summary
	}
	return st
}

// crashSummary is what the queue shows of a failed exit: how it ended and
// the agent's last non-blank line on its screen (its error, mostly), with
// the rows it wrapped from (a full-width row goes on in the next).
func crashSummary(how string, lines []string, cols int) string {
	end := len(lines) - 1
	for end >= 0 && strings.TrimSpace(lines[end]) == "" {
		end--
	}
	if end < 0 {
		return how
	}
	start := end
	for start > 0 && cols > 0 && utf8.RuneCountInString(lines[start-1]) >= cols {
		start--
	}
	return how + ": " + safetext.Field(activity.FirstLine(strings.Join(lines[start:end+1], "")))
}
