//go:build linux

package supervisor

import (
	"context"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
)

// The session's side of the socket's methods (api.go): the backend
// interface's reads and requests. None takes a lock itself: each reads
// one snapshot of the session's facts (state.go), and the other owners
// (the display, the model reader, the desk) for their own.

// State is what the `state` method returns.
func (s *Session) State() ipc.State {
	now := time.Now()
	n := s.owner.load() // every fact below is this one snapshot's
	f := n.run
	p := f.plan
	st := ipc.State{
		SessionID:  p.SessionID,
		Name:       p.Name,
		Workspace:  p.Workspace,
		Role:       p.Role,
		Profile:    p.Profile.Name,
		Document:   p.Document,
		CWD:        p.CWD,
		CWDSource:  string(p.CWDSource),
		SupPID:     supPID,
		TmuxPane:   s.tmuxPane,
		TmuxSocket: s.tmuxSock,
		Lifecycle:  f.lifecycle,

		Health:       string(f.health),
		RestartCount: max(f.spawns-1, 0),

		LastOutputAt:   unixMilli(s.display.lastOutputAt()),
		AgentSessionID: f.agentSessionID,
		Triggers:       map[string]int{},
		StartedAt:      s.startedAt.UnixMilli(),
	}
	if f.child != nil {
		st.PID = f.child.PID()
	}
	if v := s.display.view(); v != nil {
		st.Title = v.titleText()
		st.BracketedPaste = v.bracketedPaste.Load()
	}
	v, open := n.view(now), n.open
	act := v.st
	st.Activity = string(act.Activity)
	st.Reason = act.Reason
	st.Summary = act.Summary
	if activity.Prompting(act.Activity, act.Reason) {
		st.PromptDetail = act.Detail
	}
	st.WaitingSince = unixMilli(act.WaitingSince)
	st.SkipUntil = unixMilli(act.SkipUntil)
	st.Draft = v.draft
	st.OperatorBusy = v.operatorBusy()
	st.LastInputAt = unixMilli(act.LastInputAt)
	if v.focused != nil {
		st.Focused, st.FocusedAt = v.focused, unixMilli(v.focusedAt)
	}
	pr := s.promptOf(act, open, n.screen, p)
	st.PromptID, st.PromptOptions, st.PromptChoices = pr.id, pr.options, pr.choices()
	if st.PromptOptions == nil {
		st.PromptOptions = []ipc.PromptOption{}
	}
	s.model.state(&st)
	st.LastExit = f.lastExit
	s.desk.State(&st) // the desk's lock, alone: it never nests with the session's
	return st
}

func (s *Session) inject(data []byte, submit bool) (int, error) {
	return s.in.inject(data, submit, s.Plan().Profile.SubmitDelay, injectTimeout)
}

// ask hands a control request to the run loop and waits for its reply.
func (s *Session) ask(ctx context.Context, c control) (controlReply, error) {
	c.reply = make(chan controlReply, 1)
	select {
	case s.ctrl <- c:
	case <-s.done:
		return controlReply{}, ipc.Errorf(ipc.CodeNotRunning, "the supervisor is shutting down")
	case <-ctx.Done():
		return controlReply{}, ipc.Errorf(ipc.CodeInternal, "%s: %v", c.kind, ctx.Err())
	}
	return <-c.reply, nil
}

// skip moves a waiting session to the queue's tail for cooldown; false
// when it is not waiting on the human.
func (s *Session) skip(cooldown time.Duration) (activity.State, bool) {
	st, ok := s.agent.skip(time.Now(), cooldown)
	if ok {
		s.log.Info("skip", "cooldown", cooldown.String())
		s.activityChanged()
	}
	return st, ok
}
