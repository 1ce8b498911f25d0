//go:build linux

package supervisor

import (
	"context"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
)

// observe feeds a signal to the activity tracker and publishes an
// `activity` event when it changed something.
func (s *Session) observe(sig activity.Signal) {
	s.mu.Lock()
	changed := s.act.Observe(sig)
	st := s.act.State(sig.At)
	s.mu.Unlock()
	if changed {
		s.counts.inc(detectionCounter(sig.Source.String()))
		s.publishActivity(st)
		s.desk.Poke()
	}
	if changed && sig.Source == activity.SourceHook {
		// When the hook's hold ends the screen is read again: a verdict
		// set aside during the hold (a prompt declined in the pane, which
		// fires no hook) would otherwise wait for the screen to change.
		time.AfterFunc(s.hookHold+10*time.Millisecond, s.lookAgain)
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
	s.log.Info("activity", "activity", string(st.Activity), "reason", st.Reason, "source", st.Source.String(), "rule", st.Rule)
	s.publish("activity", map[string]any{
		"activity":      string(st.Activity),
		"reason":        st.Reason,
		"summary":       st.Summary,
		"source":        st.Source.String(),
		"rule":          st.Rule,
		"waiting_since": unixMilli(st.WaitingSince),
		"skip_until":    unixMilli(st.SkipUntil),
		"prompt_id":     s.promptID(),
	})
	s.publishQueue()
}

func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// handleHook applies an agent hook forwarded by `sup hook`. SessionStart
// names the conversation the running agent has (startup, resume, /clear);
// other hooks for another conversation are stale or foreign and ignored.
func (s *Session) handleHook(_ context.Context, req *ipc.Request) (any, error) {
	var p ipc.HookParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	if !ipc.KnownAgent(p.Agent) {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "hook: agent %q: valid agents are %s", p.Agent, ipc.AgentChoices())
	}
	if p.Event == "" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "hook: params need event (the hook's event name)")
	}
	now := time.Now()
	s.mu.Lock()
	running := s.child != nil || s.spawning
	current := s.agentSessionID
	switch {
	case !running:
		s.mu.Unlock()
		return s.ignoredHook(p, "no agent is running"), nil
	case p.SessionID != "" && (p.Event == "SessionStart" || current == ""):
		if p.SessionID != current {
			s.record() // writes in the background, taking s.mu then
		}
		s.agentSessionID, current = p.SessionID, p.SessionID
		if p.TranscriptPath != "" {
			s.transcriptPath = p.TranscriptPath
		}
	case p.SessionID != "" && p.SessionID != current:
		s.mu.Unlock()
		return s.ignoredHook(p, "session id "+p.SessionID+" is not the running agent's ("+current+")"), nil
	}
	if p.Prompt != "" {
		s.lastPrompt, s.lastPromptAt = p.Prompt, now
	}
	s.mu.Unlock()
	s.log.Info("hook", "agent", p.Agent, "event", p.Event, "agent_session", current)
	s.counts.inc(hookCounter(p.Event))
	e := activity.HookEvent{
		Agent: p.Agent, Event: p.Event, SessionID: p.SessionID, ToolName: p.ToolName,
		Command: p.Command, Message: p.Message, NotificationType: p.NotificationType,
	}
	if turnEnd(p.Event) {
		e.Question = s.question(p.Message)
	}
	sig, ok := activity.HookSignal(e, now)
	s.noteHook(p, ok, now)
	if ok {
		s.observe(sig)
	}
	return ipc.HookResult{Applied: true}, nil
}

func (s *Session) ignoredHook(p ipc.HookParams, why string) ipc.HookResult {
	if s.server != nil { // hooks fire on every tool call: rate-limited and counted
		s.server.Warn(ipc.NoisyHookIgnored, "hook_ignored", "agent", p.Agent, "event", p.Event, "why", why)
	} else {
		s.log.Info("hook_ignored", "agent", p.Agent, "event", p.Event, "why", why)
	}
	return ipc.HookResult{Applied: false, Why: why}
}
