//go:build linux

package supervisor

import (
	"strings"
	"time"

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
}

// crashed starts an episode at at, or updates the running one's summary.
func (a *agentFacts) crashed(at time.Time, summary string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.crash.since.IsZero() {
		a.crash.since = at
	}
	a.crash.summary = summary
}

// crashOver ends the episode; it reports whether one was running.
func (a *agentFacts) crashOver() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	was := !a.crash.since.IsZero()
	a.crash = crashEpisode{}
	return was
}

// present is st as the queue sees it, a.mu held: during a crash episode
// the session waits on the human since the episode began, with the crash
// as summary unless the agent itself says why it waits (reason crashed
// while its agent runs; halted and restarting as the lifecycle says).
func (a *agentFacts) present(st activity.State) activity.State {
	c := a.crash
	if c.since.IsZero() {
		return st
	}
	if !st.Stuck {
		st.Stuck, st.WaitingSince, st.Summary = true, c.since, c.summary
		if st.Activity != activity.Error {
			st.Reason = "crashed"
		}
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
// the agent's last non-blank line on its screen (its error, mostly).
func crashSummary(how, screen string) string {
	screen = strings.TrimSpace(screen)
	last := activity.FirstLine(screen[strings.LastIndexByte(screen, '\n')+1:])
	if last == "" {
		return how
	}
	return how + ": " + safetext.Field(last)
}
