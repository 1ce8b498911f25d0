//go:build linux

package supervisor

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/desk"
)

// Methods returns the socket methods this session answers (hello and
// subscribe are the server's own).
func (s *Session) Methods() map[string]ipc.HandlerFunc {
	return map[string]ipc.HandlerFunc{
		ipc.MethodState:   func(context.Context, *ipc.Request) (any, error) { return s.State(), nil },
		ipc.MethodPid:     s.handlePid,
		ipc.MethodInject:  s.handleInject,
		ipc.MethodRestart: s.handleRestart,
		ipc.MethodStop:    s.handleStop,
		ipc.MethodResume:  s.handleResume,
		ipc.MethodScreen:  s.handleScreen,
		ipc.MethodHistory: s.handleHistory,
		ipc.MethodHook:    s.handleHook,
		ipc.MethodSkip:    s.handleSkip,
		ipc.MethodTrigger: s.handleTrigger,
		ipc.MethodUnblock: s.handleUnblock,
		ipc.MethodPendingTriggers: func(context.Context, *ipc.Request) (any, error) {
			return s.desk.Pending(), nil
		},
		ipc.MethodCancelTrigger: s.handleCancelTrigger,
		ipc.MethodMetrics:       s.handleMetrics,
		ipc.MethodAnswer:        s.handleAnswer,
		ipc.MethodExplain:       s.handleExplain,
	}
}

// Events lists the event names the session publishes.
var Events = []string{"lifecycle", "activity", "resize", "client", "trigger", desk.EventProgress}

// State is what the `state` method returns.
func (s *Session) State() ipc.State {
	st := s.sessionState()
	s.desk.State(&st) // after s.mu is released: the desk never nests with it
	return st
}

func (s *Session) sessionState() ipc.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.plan
	st := ipc.State{
		SessionID:  p.SessionID,
		Name:       p.Name,
		Workspace:  p.Workspace,
		Role:       p.Role,
		Profile:    p.Profile.Name,
		Document:   p.Document,
		CWD:        p.CWD,
		CWDSource:  string(p.CWDSource),
		SupPID:     os.Getpid(),
		TmuxPane:   s.tmuxPane,
		TmuxSocket: s.tmuxSock,
		Lifecycle:  s.lifecycle,

		Health:       string(s.tracker.Health()),
		RestartCount: max(s.spawns-1, 0),

		LastOutputAt:   unixMilli(s.lastOutputAt()),
		AgentSessionID: s.agentSessionID,
		Triggers:       map[string]int{},
		StartedAt:      s.startedAt.UnixMilli(),
	}
	if s.child != nil {
		st.PID = s.child.PID()
	}
	if v := s.view.Load(); v != nil {
		st.Title = v.titleText()
		st.BracketedPaste = v.bracketedPaste.Load()
	}
	act := s.act.State(time.Now())
	st.Activity = string(act.Activity)
	st.Reason = act.Reason
	st.Summary = act.Summary
	st.WaitingSince = unixMilli(act.WaitingSince)
	st.SkipUntil = unixMilli(act.SkipUntil)
	st.Draft = s.draft
	st.OperatorBusy = act.OperatorBusy || s.draft != ""
	st.LastInputAt = unixMilli(act.LastInputAt)
	if s.focused != nil {
		f := *s.focused
		st.Focused, st.FocusedAt = &f, unixMilli(s.focusedAt)
	}
	s.promptState(&st, time.Now())
	s.modelState(&st)
	if e, ok := s.tracker.Last(); ok {
		st.LastExit = exitInfo(e.Code, e.Signal, string(e.Class), e.At)
	}
	return st
}

func (s *Session) handlePid(context.Context, *ipc.Request) (any, error) {
	r := ipc.PidResult{SupPID: os.Getpid()}
	if c := s.current(); c != nil {
		r.PID = c.PID()
	}
	return r, nil
}

// injectTimeout bounds a write into a pty whose child stopped reading:
// the same bound the trigger desk's deliveries have.
const injectTimeout = desk.WriteTimeout

// handleInject writes raw bytes to the pty master. It is deliberately
// unfiltered: the policy-checked path for prompts is `trigger`.
func (s *Session) handleInject(_ context.Context, req *ipc.Request) (any, error) {
	var p ipc.InjectParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	var data []byte
	switch {
	case p.Text != nil && p.Bytes != nil:
		return nil, ipc.Errorf(ipc.CodeBadRequest, "inject: give text or bytes, not both")
	case p.Text != nil:
		data = []byte(*p.Text)
	case p.Bytes != nil:
		data = p.Bytes
	case !p.Submit:
		return nil, ipc.Errorf(ipc.CodeBadRequest, "inject: params need text (string) or bytes (binary)")
	}
	n, err := s.in.inject(data, p.Submit, s.Plan().Profile.SubmitDelay, injectTimeout)
	switch {
	case errors.Is(err, errNoChild):
		return nil, s.notRunning()
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, ipc.Errorf(ipc.CodeAckTimeout, "inject: the agent did not read its input within %s (%d bytes written)", injectTimeout, n)
	case err != nil:
		return nil, ipc.Errorf(ipc.CodeNotRunning, "inject: write to the agent's pty: %v", err)
	}
	s.log.Info("inject", "bytes", n, "submit", p.Submit)
	return ipc.InjectResult{Written: n}, nil
}

func (s *Session) notRunning() error {
	s.mu.Lock()
	l := s.lifecycle
	s.mu.Unlock()
	if l == LifecycleHalted {
		return ipc.Errorf(ipc.CodeHalted, "the agent is halted after repeated failures; call resume")
	}
	return ipc.Errorf(ipc.CodeNotRunning, "no agent is running (lifecycle %s)", l)
}

func (s *Session) handleRestart(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.RestartParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	if p.Mode != "" && p.Mode != "fresh" && p.Mode != "resume" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "restart: mode %q: valid modes are fresh and resume", p.Mode)
	}
	return s.request(ctx, control{kind: ctrlRestart, fresh: p.Mode == "fresh"})
}

func (s *Session) handleResume(ctx context.Context, req *ipc.Request) (any, error) {
	if err := req.DecodeParams(&struct{}{}); err != nil {
		return nil, err
	}
	return s.request(ctx, control{kind: ctrlResume})
}

func (s *Session) handleStop(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.StopParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	c := control{kind: ctrlStop, grace: p.Graceful == nil || *p.Graceful}
	r, err := s.requestReply(ctx, c)
	if err != nil {
		return nil, err
	}
	return ipc.StopResult{Stopped: true, EndedBy: r.endedBy}, nil
}

// requestReply hands a control request to the run loop and waits for its
// reply.
func (s *Session) requestReply(ctx context.Context, c control) (controlReply, error) {
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

// request hands a control request to the run loop and waits for its answer.
func (s *Session) request(ctx context.Context, c control) (any, error) {
	r, err := s.requestReply(ctx, c)
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, ipc.Errorf(ipc.CodeSpawnFailed, "%v", r.err)
	}
	res := ipc.RestartResult{PID: r.pid, Mode: "fresh", AlreadyRunning: r.running}
	if r.resumed {
		res.Mode = "resume"
	}
	return res, nil
}

func (s *Session) handleScreen(_ context.Context, req *ipc.Request) (any, error) {
	var p ipc.ScreenParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	if p.Format == "" {
		p.Format = "text"
	}
	if p.Format != "text" && p.Format != "ansi" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "screen: format %q: valid formats are text and ansi", p.Format)
	}
	v := s.view.Load()
	if v == nil {
		return nil, ipc.Errorf(ipc.CodeNotRunning, "screen: no agent has run yet")
	}
	snap := v.model.Snapshot()
	r := ipc.ScreenResult{Text: snap.Text, Format: p.Format, Cols: snap.Cols, Rows: snap.Rows, CursorCol: snap.CursorCol,
		CursorRow: snap.CursorRow, CursorVisible: snap.CursorOn, AltScreen: snap.AltScreen, Desynced: snap.Desynced}
	if p.Format == "ansi" {
		r.Text = snap.ANSI
	}
	return r, nil
}

func (s *Session) handleHistory(context.Context, *ipc.Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := ipc.HistoryResult{Exits: []ipc.ExitInfo{}, Health: string(s.tracker.Health())}
	for _, e := range s.tracker.History() {
		r.Exits = append(r.Exits, *exitInfo(e.Code, e.Signal, string(e.Class), e.At))
	}
	return r, nil
}
