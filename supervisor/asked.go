//go:build linux

package supervisor

import (
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// The session's side of questions and stalls (specs/detection.md,
// "Questions" and "Stalled"): the profile's rule read on a turn's last
// message, the hooks that are progress, and the stall watch of a child's
// screen.

// question is the question msg, a finished turn's last message, asks the
// human by the profile's rule; "" when it asks none. Only the hook's
// message is read, never the screen (specs/detection.md, "Questions").
func (s *Session) question(msg string) string {
	d, err := s.Plan().Profile.Questions.Compile()
	if err != nil {
		// The profile was validated when it was loaded; a rule that does
		// not compile asks nothing, and says why in the log.
		s.log.Warn("questions_rule", "err", err)
		return ""
	}
	return d.Detect(msg).Question
}

// turnEnd: the hook events that end a turn and carry its last message.
func turnEnd(event string) bool {
	return event == "Stop" || event == "agent-turn-complete" || event == "AfterAgent"
}

// noteHook records a hook's word for the stall: every hook is progress,
// and a tool call says what the agent is doing. It publishes a stall the
// hook lifted when the hook has no signal of its own.
func (s *Session) noteHook(p ipc.HookParams, hasSignal bool, now time.Time) {
	s.mu.Lock()
	switch {
	case p.ToolName != "":
		s.work = p.ToolName
		if p.Command != "" {
			s.work += ": " + activity.FirstLine(p.Command)
		}
	case turnEnd(p.Event) || p.Event == "UserPromptSubmit":
		s.work = ""
	}
	changed := false
	if !hasSignal {
		changed = s.act.Progress(now, "hook:"+p.Event)
	}
	st := s.act.State(now)
	s.mu.Unlock()
	if changed {
		s.publishActivity(st)
		s.desk.Poke()
	}
}

// stallPoll is how often the stall watch looks at the screen: a twentieth
// of stall_after, within these bounds (a snapshot costs ~0.1 ms).
const (
	stallPollMin = 100 * time.Millisecond
	stallPollMax = 5 * time.Second
)

// watchStall looks at c's screen until c ends: a change outside the
// profile's status lines is progress; a busy session with none (and no
// hook) for after is stalled. Profiles without a pack (a shell) have no
// status lines to tell a spinner from work, and are not watched.
func (s *Session) watchStall(c *proc.Child, v *view, status activity.StatusLines, after time.Duration) {
	if after <= 0 || v.lineMode {
		return
	}
	tick := time.NewTicker(min(max(after/20, stallPollMin), stallPollMax))
	defer tick.Stop()
	for {
		select {
		case <-c.Done():
			return
		case <-tick.C:
		}
		snap := v.model.Snapshot()
		if snap.InFrame {
			continue // half a frame is no change
		}
		fp, line := status.Fingerprint(snap.Text)
		now := time.Now()
		s.mu.Lock()
		doing := s.work
		if doing == "" {
			doing = line
		}
		changed, _ := s.act.Stall(now, after, fp, doing)
		st := s.act.State(now)
		s.mu.Unlock()
		if changed {
			s.publishActivity(st)
			s.desk.Poke()
		}
	}
}

// explainProgress is explain's word on the stall: the last real progress
// seen, when, and the threshold after. s.mu is held.
func (s *Session) explainProgress(after time.Duration) *ipc.ExplainProgress {
	at, what := s.act.LastProgress()
	return &ipc.ExplainProgress{At: unixMilli(at), What: what, StallAfterMS: after.Milliseconds()}
}
