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
	changed, _ := s.agent.observe(sig)
	s.observed(sig, changed)
}

// observed is what follows a signal the tracker took (changed: it
// changed the activity): the counter, the event and the desk's look.
func (s *Session) observed(sig activity.Signal, changed bool) {
	if !changed {
		return
	}
	s.counts.inc(detectionCounter(sig.Source.String()))
	s.activityChanged()
	if sig.Source == activity.SourceHook {
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
	s.observe(lifecycleSig(rule, a, reason, stuck))
}

func lifecycleSig(rule string, a activity.Activity, reason string, stuck bool) activity.Signal {
	return activity.Signal{Source: activity.SourceLifecycle, Rule: "lifecycle:" + rule, Activity: a,
		Reason: reason, Stuck: stuck, At: time.Now()}
}

// activityChanged sends the `activity` event of the current snapshot —
// once per version, never an older version after a newer one — and
// republishes the queue facts. It changes nothing: the prompt id it sends
// was fixed when the facts changed.
func (s *Session) activityChanged() {
	if v := s.display.view(); v != nil {
		v.activityChanged()
	}
	s.sendActivity()
	s.publishQueue()
}

// sendActivity sends the current snapshot's `activity` event unless one
// of this version or a newer one went out. The load, the compare and the
// send are one step under eventMu: a caller that loaded an older version
// cannot send it after another sent a newer one.
func (s *Session) sendActivity() {
	s.eventMu.Lock()
	defer s.eventMu.Unlock()
	n := s.owner.load()
	if n.version <= s.lastEvent {
		return // an event of this version or a newer one went out
	}
	s.lastEvent = n.version
	st := n.st
	s.log.Info("activity", "activity", string(st.Activity), "reason", st.Reason, "source", st.Source.String(), "rule", st.Rule)
	s.publish(ipc.EventActivity, ipc.ActivityEvent{
		Activity:     string(st.Activity),
		Reason:       st.Reason,
		Summary:      st.Summary,
		Source:       st.Source.String(),
		Rule:         st.Rule,
		WaitingSince: unixMilli(st.WaitingSince),
		SkipUntil:    unixMilli(st.SkipUntil),
		PromptID:     n.open.id,
	})
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
	// One change for the whole hook: its prompt, its word for the stall
	// (agentFacts.noteHook: a stall the hook lifted, when it has no
	// signal of its own) and its signal, so one event at most follows.
	lifted, changed := false, false
	s.owner.update(func() bool {
		a := &s.owner.agent
		if p.Prompt != "" {
			a.lastPrompt, a.lastPromptAt = p.Prompt, now
		}
		lifted = a.noteHook(p, ok, now)
		if ok {
			changed = a.act.Observe(sig)
		}
		return true
	})
	if lifted {
		s.activityChanged()
	}
	if ok {
		s.observed(sig, changed)
	}
	return true, ""
}
