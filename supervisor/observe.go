//go:build linux

package supervisor

import (
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
)

// observe feeds a signal to the activity tracker and publishes an
// `activity` event when it changed something.
func (s *Session) observe(sig activity.Signal) {
	changed, st := s.agent.observe(sig)
	if changed {
		s.counts.inc(detectionCounter(sig.Source.String()))
		s.publishActivity(st)
		s.factsChanged()
	}
	if changed && sig.Source == activity.SourceHook {
		// When the hook's hold ends the screen is read again: a verdict
		// set aside during the hold (a prompt declined in the pane, which
		// fires no hook) would otherwise wait for the screen to change.
		time.AfterFunc(s.hookHold+10*time.Millisecond, s.display.lookAgain)
	}
}

// lifecycleSignal is what the child's lifecycle says about activity: a
// clean exit waiting for Enter and a halt wait on the human; a crash about
// to be restarted does not.
func (s *Session) lifecycleSignal(rule string, a activity.Activity, reason string, stuck bool) {
	s.observe(activity.Signal{Source: activity.SourceLifecycle, Rule: "lifecycle:" + rule, Activity: a,
		Reason: reason, Stuck: stuck, At: time.Now()})
}

func (s *Session) publishActivity(st activity.State) {
	if v := s.display.view(); v != nil {
		v.activityChanged()
	}
	_, open := s.agent.withPrompt(time.Now()) // the first event of a prompt fixes its id
	s.log.Info("activity", "activity", string(st.Activity), "reason", st.Reason, "source", st.Source.String(), "rule", st.Rule)
	s.publish(ipc.EventActivity, ipc.ActivityEvent{
		Activity:     string(st.Activity),
		Reason:       st.Reason,
		Summary:      st.Summary,
		Source:       st.Source.String(),
		Rule:         st.Rule,
		WaitingSince: unixMilli(st.WaitingSince),
		SkipUntil:    unixMilli(st.SkipUntil),
		PromptID:     open.id,
	})
	s.publishQueue()
}

func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// hook applies an agent hook forwarded by `sup hook` (the api checked
// its agent and event). SessionStart names the conversation the running
// agent has (startup, resume, /clear); other hooks for another
// conversation are stale or foreign and not applied: why says so.
func (s *Session) hook(p ipc.HookParams) (applied bool, why string) {
	now := time.Now()
	current, why := s.hookConversation(p)
	if why != "" {
		return false, why
	}
	if p.Prompt != "" {
		s.agent.hookPrompt(p.Prompt, now)
		s.factsChanged() // a trigger's ack by hook reads it
	}
	s.log.Info("hook", "agent", p.Agent, "event", p.Event, "agent_session", current)
	s.counts.inc(hookCounter(p.Event))
	e := activity.HookEvent{
		Agent: p.Agent, Event: p.Event, SessionID: p.SessionID, ToolName: p.ToolName,
		Command: ipc.BoundDetail(p.Command), Message: p.Message, NotificationType: p.NotificationType,
	}
	if turnEnd(p.Event) {
		e.Question = s.question(p.Message)
	}
	sig, ok := activity.HookSignal(e, now)
	// The hook's word for the stall (agentFacts.noteHook): a stall the
	// hook lifted is published here when the hook has no signal of its own.
	if changed, st := s.agent.noteHook(p, ok, now); changed {
		s.publishActivity(st)
		s.factsChanged()
	}
	if ok {
		s.observe(sig)
	}
	return true, ""
}
