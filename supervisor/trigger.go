//go:build linux

package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/desk"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// The session's side of the trigger desk (package desk): deskPort, the
// narrow view of the session the desk works through. Each deskPort
// method reads through the session's owners (facts, agent, the input
// router) and holds no lock when it returns; the desk calls none of them
// while it holds its own lock.

// deskPort is the session as the trigger desk sees it (desk.Port).
type deskPort struct{ s *Session }

// Facts: one read of the session for the desk — the gates, the ack facts
// and the loop guard's token from one snapshot of the session's facts.
func (p deskPort) Facts(now time.Time) desk.Facts {
	s := p.s
	n := s.owner.load()
	v := n.view(now)
	return desk.Facts{Gates: p.gatesFrom(n, v), Ack: p.ackOf(n.run, v), Progress: n.progress(), Envelope: n.run.plan.Profile.EnvelopeOn(),
		BracketedPaste: p.bracketedPaste()}
}

// bracketedPaste: the agent asked for bracketed paste (xterm mode 2004).
func (p deskPort) bracketedPaste() bool {
	dv := p.s.display.view()
	return dv != nil && dv.bracketedPaste.Load()
}

// gates: the operator is busy while typing (the quiet window) or while a
// draft sits in the input box; the agent, mid-turn, with a prompt open, or
// before its first child has started. One snapshot: the child, the
// lifecycle and the activity of one version.
func (p deskPort) gates(now time.Time) desk.Gates {
	n := p.s.owner.load()
	return p.gatesFrom(n, n.view(now))
}

// gatesFrom: n's gates (v its view), with the count of the human's keys
// routed so far (Gates.Keys; exact under the input lock, where a write's
// check and confirm read it).
func (p deskPort) gatesFrom(n *snapshot, v agentView) desk.Gates {
	g := gatesOf(n.run, v, n.held)
	g.Keys = p.s.in.typed.Load()
	return g
}

// gatesOf: the gates of the run's facts f and the agent's view v; held:
// the watcher holds classification while a desynced screen is read
// again, so the last verdict may describe a screen that is gone.
func gatesOf(f runFacts, v agentView, held bool) desk.Gates {
	st, running, lifecycle := v.st, f.child != nil, f.lifecycle
	// Unknown is never deliverable: a screen no rule recognises may be a
	// dialog, and a paste with an Enter would answer it. Nor is a screen
	// not whole yet (held): the verdict from before the flood may say
	// ready over a dialog the flood drew.
	prompting := running && (st.Activity == activity.NeedsConfirmation || st.Activity == activity.Unknown || held)
	g := desk.Gates{
		OperatorBusy: v.operatorBusy(),
		LastKey:      st.LastInputAt,
		Draft:        v.draft != "",
		// Nor is a model's reading deliverable: only a rule or a hook
		// makes a screen safe to type into (specs/detection.md, "The
		// model reader").
		AgentBusy: prompting || running && (st.Activity == activity.Busy || st.Source == activity.SourceModel) ||
			lifecycle == LifecycleStarting,
		Prompting: prompting,
		Stopped:   lifecycle == LifecycleStopped,
	}
	if st.Activity == activity.Ready && st.Reason == activity.ReasonAsked {
		g.Question = st.Summary // a trigger that is not its answer waits
	}
	switch {
	case v.draft != "":
		g.OperatorWhy = "unsent text sits in the agent's input box"
	case st.OperatorBusy:
		g.OperatorWhy = "the human is typing in the pane"
	}
	switch {
	case lifecycle == LifecycleStarting || !running:
		g.AgentWhy = "the agent is starting"
	case held:
		g.AgentWhy = "the screen is not whole yet (a flood is being read again)"
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

func (p deskPort) Child() desk.Child {
	if c := p.s.current(); c != nil {
		return c
	}
	return nil // an untyped nil: a nil *proc.Child would compare unequal to it
}

func (p deskPort) BringBack() (desk.Child, string, ipc.Code, error) {
	c, mode, code, err := p.bringBack()
	if err != nil {
		return nil, mode, code, err
	}
	return c, mode, code, nil
}

func (p deskPort) Write(c desk.Child, check func(desk.Gates) ([]byte, bool, error), confirm func(desk.Gates) error) (time.Time, error) {
	s := p.s
	var confirmNow func() error
	if confirm != nil {
		confirmNow = func() error { return confirm(p.gates(time.Now())) }
	}
	n, at, err := s.in.write(c.(*proc.Child).Master(), s.Plan().Profile.SubmitDelay, desk.WriteTimeout,
		func() ([]byte, bool, error) { return check(p.gates(time.Now())) }, confirmNow)
	switch {
	case errors.Is(err, errNoChild) && n > 0:
		return at, fmt.Errorf("%w between the paste and its Enter (the Enter was not sent)", desk.ErrChildGone)
	case errors.Is(err, errNoChild):
		return at, desk.ErrChildGone
	}
	return at, err
}

func (p deskPort) ScreenText() string {
	return p.s.display.text()
}

// ackOf: what shows a trigger was taken, r and v the run's and the
// agent's facts of one snapshot.
func (p deskPort) ackOf(r runFacts, v agentView) desk.AckFacts {
	s := p.s
	f := desk.AckFacts{LastOutput: s.display.lastOutputAt(), LineMode: s.display.lineMode(), OutputBytes: s.display.outBytes.Load()}
	if c := r.child; c != nil && f.LineMode {
		f.Foreground, _ = proc.Foreground(c.Master()) // Best effort: 0 is "unknown".
	}
	f.Prompt, f.PromptAt, f.Busy, f.Since, f.Draft = v.lastPrompt, v.lastPromptAt, v.st.Activity == activity.Busy, v.st.Since, v.draft
	return f
}

func (p deskPort) Identity() (string, string) {
	pl := p.s.Plan()
	return pl.SessionID, pl.Document
}

func (p deskPort) Publish(event string, data any) { p.s.publish(event, data) }

// bringBack restarts a child that is not running — resuming its exact
// conversation when its id is known, else fresh — and waits until it is
// ready for input.
func (p deskPort) bringBack() (c *proc.Child, mode string, code ipc.Code, err error) {
	s := p.s
	code = ipc.CodeSpawnFailed
	if s.facts().agentSessionID != "" {
		code = ipc.CodeResumeFailed
	}
	ready := s.desk.Config().ReadyTimeout
	ctx, cancel := context.WithTimeout(context.Background(), ready)
	defer cancel()
	s.log.Info("trigger_fallback", "code_if_failed", code)
	rr, err := restartResult(s.ask(ctx, control{kind: ctrlResume}))
	if err != nil {
		return nil, "", code, fmt.Errorf("bring the agent back: %v", err)
	}
	c = s.current()
	if c == nil || c.PID() != rr.PID {
		return nil, rr.Mode, code, fmt.Errorf("the agent (%s) ended right after it started", rr.Mode)
	}
	debounce := s.Plan().Config.Activity.ReadyDebounce
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		changed := s.changes.wait() // before the look: a change after it wakes the wait
		ok, again := p.readyAfterSpawn(c, debounce)
		if ok {
			return c, rr.Mode, "", nil
		}
		timer.Reset(again)
		select {
		case <-c.Done():
			exitCode, sig := c.Exit()
			return nil, rr.Mode, code, fmt.Errorf("the agent (%s) exited (%s) before it was ready", rr.Mode, exitInfo(exitCode, sig, "", time.Now()).Describe())
		case <-ctx.Done():
			return nil, rr.Mode, code, fmt.Errorf("the agent (%s) was not ready within %s", rr.Mode, ready)
		case <-changed:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// readyAfterSpawn: the activity says ready, or — for an agent whose
// profile cannot tell — it has printed something and then gone quiet for
// debounce. again is when to look again without a change of the facts:
// when that quiet is over (output itself is no change of the facts), else
// a second, as a backstop.
func (p deskPort) readyAfterSpawn(c *proc.Child, debounce time.Duration) (ready bool, again time.Duration) {
	s := p.s
	switch s.agent.state(time.Now()).Activity {
	case activity.Ready:
		return true, 0
	case activity.Unknown:
		last := s.display.lastOutputAt()
		if last.UnixMilli() >= c.StartedAt().UnixMilli() {
			if quiet := time.Since(last); quiet < debounce {
				return false, debounce - quiet
			}
			return true, 0
		}
	}
	return false, time.Second
}
