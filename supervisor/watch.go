//go:build linux

package supervisor

import (
	"time"

	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/classify"
	"github.com/sup-tmux/sup/supervisor/proc"
	"github.com/sup-tmux/sup/supervisor/screen"
	"golang.org/x/sys/unix"
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
// debounce, because an agent between two bursts of output looks idle.
func (s *Session) watchScreen(c *proc.Child, v *view, pack *classify.Pack, debounce time.Duration) {
	var last time.Time
	recheck := time.NewTimer(time.Hour)
	recheck.Stop()
	defer recheck.Stop()
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
		snap := v.model.Snapshot()
		if snap.InFrame {
			recheck.Reset(frameRetry)
			continue
		}
		res := s.classify(c, pack, snap)
		s.noteScreen(res, pack, snap)
		s.setDraft(res.Draft)
		if !res.Matched {
			continue
		}
		if res.Activity == activity.Ready {
			quiet := time.Since(time.UnixMilli(s.lastOutput.Load()))
			if quiet < debounce {
				recheck.Reset(debounce - quiet)
				continue
			}
		}
		s.observe(activity.Signal{Source: activity.SourceScreen, Rule: "screen:" + res.Rule, Activity: res.Activity,
			Reason: res.Reason, Summary: res.Summary, Stuck: activity.Stuck(res.Activity), At: time.Now()})
	}
}

// classify applies the profile's pack; a profile without screen rules (the
// shell) is ready exactly when the pty's foreground process group is the
// child's own: the shell waits at its prompt, no command runs.
func (s *Session) classify(c *proc.Child, pack *classify.Pack, snap screen.Snapshot) classify.Result {
	if pack != nil && pack.HasRules() {
		return pack.Classify(snap)
	}
	var pgrp int
	err := proc.FDControl(c.Master(), func(fd int) (err error) {
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	switch {
	case err != nil:
		return classify.Result{}
	case pgrp == c.PID():
		return classify.Result{Activity: activity.Ready, Reason: "idle", Rule: "foreground:shell", Matched: true}
	default:
		return classify.Result{Activity: activity.Busy, Reason: "working", Rule: "foreground:command", Matched: true}
	}
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
