//go:build linux

package supervisor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/desk"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// The session's side of the trigger desk (package desk): the socket
// methods, and deskPort, the narrow view of the session the desk works
// through. Each deskPort method takes s.mu (or the input router's lock)
// only for its own read or write; the desk calls none of them while it
// holds its own lock.

func (s *Session) handleTrigger(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.TriggerParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	r, err := s.desk.Trigger(ctx, p)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (s *Session) handleUnblock(_ context.Context, req *ipc.Request) (any, error) {
	var p ipc.UnblockParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	r, err := s.desk.Unblock(p)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// handleCancelTrigger takes a pending trigger back (desk.Cancel).
func (s *Session) handleCancelTrigger(_ context.Context, req *ipc.Request) (any, error) {
	var p ipc.CancelTriggerParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	return s.desk.Cancel(p)
}

// handleMetrics answers the desk's counters and the control socket's
// noisy-input counters (ipc_<kind>_total) in one map.
func (s *Session) handleMetrics(context.Context, *ipc.Request) (any, error) {
	m := s.desk.Metrics()
	s.counts.copyTo(m.Counters)
	if s.server != nil {
		maps.Copy(m.Counters, s.server.NoisyCounters())
	}
	return m, nil
}

// deskPort is the session as the trigger desk sees it (desk.Session).
type deskPort struct{ s *Session }

// Gates: the operator is busy while typing (the quiet window) or while a
// draft sits in the input box; the agent, mid-turn, with a prompt open, or
// before its first child has started.
func (p deskPort) Gates(now time.Time) desk.Gates {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.act.State(now)
	running := s.child != nil
	g := desk.Gates{
		OperatorBusy: st.OperatorBusy || s.draft != "",
		LastKey:      st.LastInputAt,
		Draft:        s.draft != "",
		// Unknown is never deliverable: a screen no rule recognises may
		// be a dialog, and a paste with an Enter would answer it.
		// Nor is a model's reading: only a rule or a hook makes a screen
		// safe to type into (specs/detection.md, "The model reader").
		AgentBusy: running && (st.Activity == activity.Busy || st.Activity == activity.NeedsConfirmation ||
			st.Activity == activity.Unknown || st.Source == activity.SourceModel) || s.lifecycle == LifecycleStarting,
		Stopped: s.lifecycle == LifecycleStopped,
	}
	if st.Activity == activity.Ready && st.Reason == activity.ReasonAsked {
		g.Question = st.Summary // a trigger that is not its answer waits
	}
	switch {
	case s.draft != "":
		g.OperatorWhy = "unsent text sits in the agent's input box"
	case st.OperatorBusy:
		g.OperatorWhy = "the human is typing in the pane"
	}
	switch {
	case s.lifecycle == LifecycleStarting || !running:
		g.AgentWhy = "the agent is starting"
	case st.Activity == activity.Busy:
		g.AgentWhy = "the agent is busy (mid-turn)"
	case st.Activity == activity.NeedsConfirmation:
		g.AgentWhy = "a prompt is open in the agent, waiting for the human"
	case st.Activity == activity.Unknown:
		g.AgentWhy = "the agent's screen is not recognised yet (unknown is never typed into)"
	case st.Source == activity.SourceModel:
		g.AgentWhy = "only the model reader has read the screen (a rule or a hook must say it is ready)"
	}
	return g
}

// Progress: a new assistant message or a key from the human moves the
// conversation on.
func (p deskPort) Progress() string {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.act.State(time.Now())
	return st.Summary + "\x00" + strconv.FormatInt(st.LastInputAt.UnixNano(), 10)
}

func (p deskPort) Child() desk.Child {
	if c := p.s.current(); c != nil {
		return c
	}
	return nil // an untyped nil: a nil *proc.Child would compare unequal to it
}

func (p deskPort) BringBack() (desk.Child, string, ipc.Code, error) {
	c, mode, code, err := p.s.bringBack()
	if err != nil {
		return nil, mode, code, err
	}
	return c, mode, code, nil
}

func (p deskPort) Write(c desk.Child, check func(desk.Gates) ([]byte, bool, error)) (time.Time, error) {
	s := p.s
	_, at, err := s.in.write(c.(*proc.Child).Master(), s.Plan().Profile.SubmitDelay, desk.WriteTimeout,
		func() ([]byte, bool, error) { return check(p.Gates(time.Now())) })
	if errors.Is(err, errNoChild) {
		return at, desk.ErrChildGone
	}
	return at, err
}

func (p deskPort) Envelope() bool { return p.s.Plan().Profile.EnvelopeOn() }

func (p deskPort) BracketedPaste() bool {
	v := p.s.view.Load()
	return v != nil && v.bracketedPaste.Load()
}

func (p deskPort) ScreenText() string {
	if v := p.s.view.Load(); v != nil {
		return v.model.Snapshot().Text
	}
	return ""
}

func (p deskPort) AckFacts(now time.Time) desk.AckFacts {
	s := p.s
	f := desk.AckFacts{LastOutput: s.lastOutputAt(), LineMode: s.lineMode(), OutputBytes: s.outBytes.Load()}
	if c := s.current(); c != nil && f.LineMode {
		f.Foreground, _ = proc.Foreground(c.Master()) // Best effort: 0 is "unknown".
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.act.State(now)
	f.Prompt, f.PromptAt, f.Busy, f.Since, f.Draft = s.lastPrompt, s.lastPromptAt, st.Activity == activity.Busy, st.Since, s.draft
	return f
}

func (p deskPort) Identity() (string, string) {
	pl := p.s.Plan()
	return pl.SessionID, pl.Document
}

func (p deskPort) Publish(event string, data map[string]any) { p.s.publish(event, data) }

// bringBack restarts a child that is not running — resuming its exact
// conversation when its id is known, else fresh — and waits until it is
// ready for input.
func (s *Session) bringBack() (c *proc.Child, mode string, code ipc.Code, err error) {
	s.mu.Lock()
	code = ipc.CodeSpawnFailed
	if s.agentSessionID != "" {
		code = ipc.CodeResumeFailed
	}
	s.mu.Unlock()
	ready := s.desk.Config().ReadyTimeout
	ctx, cancel := context.WithTimeout(context.Background(), ready)
	defer cancel()
	s.log.Info("trigger_fallback", "code_if_failed", code)
	res, err := s.request(ctx, control{kind: ctrlResume})
	if err != nil {
		return nil, "", code, fmt.Errorf("bring the agent back: %v", err)
	}
	rr := res.(ipc.RestartResult)
	c = s.current()
	if c == nil || c.PID() != rr.PID {
		return nil, rr.Mode, code, fmt.Errorf("the agent (%s) ended right after it started", rr.Mode)
	}
	debounce := s.Plan().Config.Activity.ReadyDebounce
	tick := time.NewTicker(desk.AckPoll)
	defer tick.Stop()
	for !s.readyAfterSpawn(c, debounce) {
		select {
		case <-c.Done():
			exitCode, sig := c.Exit()
			return nil, rr.Mode, code, fmt.Errorf("the agent (%s) exited (%s) before it was ready", rr.Mode, exitInfo(exitCode, sig, "", time.Now()).Describe())
		case <-ctx.Done():
			return nil, rr.Mode, code, fmt.Errorf("the agent (%s) was not ready within %s", rr.Mode, ready)
		case <-tick.C:
		}
	}
	return c, rr.Mode, "", nil
}

// readyAfterSpawn: the activity says ready, or — for an agent whose
// profile cannot tell — it has printed something and then gone quiet.
func (s *Session) readyAfterSpawn(c *proc.Child, debounce time.Duration) bool {
	s.mu.Lock()
	st := s.act.State(time.Now())
	s.mu.Unlock()
	switch st.Activity {
	case activity.Ready:
		return true
	case activity.Unknown:
		last := s.lastOutputAt().UnixMilli()
		return last >= c.StartedAt().UnixMilli() && time.Since(time.UnixMilli(last)) >= debounce
	}
	return false
}
