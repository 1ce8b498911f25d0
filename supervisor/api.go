//go:build linux

package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"maps"
	"os"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/desk"
)

// api answers the control socket's methods (specs/ipc.md; hello and
// subscribe are the server's own). Like tailscale's localapi over its
// LocalBackend, it decodes and checks a request's params, asks the session
// through the few methods of backend, and shapes the reply: it keeps no
// state and takes none of the session's locks. The trigger desk answers
// the methods that are its own (trigger, answer, unblock, pending and
// cancel) behind its lock.
type api struct {
	s       backend
	desk    *desk.Desk
	display *display // the screen, for `screen`
	counts  *counters
	// server is the control socket's: its noisy-input limiter (Warn) and
	// counters (metrics). nil in tests that build a Session alone.
	server *ipc.Server
	audit  *store.Audit // inject's lines and refused lifecycle/control calls' (the desk writes triggers' and answers')
	log    *slog.Logger
}

// backend is the session as the socket's methods see it (Session
// implements it). Each method is one read or one request: none holds a
// lock when it returns.
type backend interface {
	State() ipc.State
	Plan() *plan.Plan
	facts() runFacts // the run loop's facts: the child, the lifecycle
	history() ipc.HistoryResult
	explain() ipc.ExplainResult
	// inject writes into the running child's pty (errNoChild between
	// runs, os.ErrDeadlineExceeded when it does not read).
	inject(data []byte, submit bool) (int, error)
	// ask hands a control request to the run loop and waits for its reply.
	ask(ctx context.Context, c control) (controlReply, error)
	// hook applies a hook; why says why one was not applied.
	hook(p ipc.HookParams) (applied bool, why string)
	// skip moves a waiting session to the queue's tail for cooldown.
	skip(cooldown time.Duration) (activity.State, bool)
}

var _ backend = (*Session)(nil)

// newAPI is the socket's methods over s, served by srv (nil in tests
// that build a Session alone).
func newAPI(s *Session, srv *ipc.Server) *api {
	return &api{s: s, desk: s.desk, display: &s.display, counts: &s.counts, server: srv, audit: s.audit, log: s.log}
}

// methods returns the handlers by method name.
func (a *api) methods() map[string]ipc.HandlerFunc {
	return map[string]ipc.HandlerFunc{
		ipc.MethodState:           func(context.Context, *ipc.Request) (any, error) { return a.s.State(), nil },
		ipc.MethodPid:             a.pid,
		ipc.MethodInject:          a.inject,
		ipc.MethodRestart:         a.restart,
		ipc.MethodStop:            a.stop,
		ipc.MethodResume:          a.resume,
		ipc.MethodScreen:          a.screen,
		ipc.MethodHistory:         func(context.Context, *ipc.Request) (any, error) { return a.s.history(), nil },
		ipc.MethodHook:            a.hook,
		ipc.MethodSkip:            a.skip,
		ipc.MethodTrigger:         a.trigger,
		ipc.MethodUnblock:         a.unblock,
		ipc.MethodPendingTriggers: func(context.Context, *ipc.Request) (any, error) { return a.desk.Pending(), nil },
		ipc.MethodCancelTrigger:   a.cancelTrigger,
		ipc.MethodMetrics:         a.metrics,
		ipc.MethodAnswer:          a.answer,
		ipc.MethodExplain:         a.explain,
	}
}

// Events lists the event names the session publishes.
var Events = []string{"lifecycle", "activity", "resize", "client", "trigger", desk.EventProgress}

func (a *api) pid(context.Context, *ipc.Request) (any, error) {
	r := ipc.PidResult{SupPID: supPID}
	if c := a.s.facts().child; c != nil {
		r.PID = c.PID()
	}
	return r, nil
}

// injectTimeout bounds a write into a pty whose child stopped reading:
// the same bound the trigger desk's deliveries have.
const injectTimeout = desk.WriteTimeout

// inject writes raw bytes to the pty master. It is deliberately
// unfiltered: the policy-checked path for prompts is `trigger`.
func (a *api) inject(ctx context.Context, req *ipc.Request) (res any, err error) {
	var p ipc.InjectParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	defer func() { a.auditInject(ctx, p, res, err) }()
	if err := a.allow(ctx, caller.ActInject, "inject"); err != nil {
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
	n, err := a.s.inject(data, p.Submit)
	switch {
	case errors.Is(err, errNoChild):
		return nil, a.notRunning()
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, ipc.Errorf(ipc.CodeAckTimeout, "inject: the agent did not read its input within %s (%d bytes written)", injectTimeout, n)
	case err != nil:
		return nil, ipc.Errorf(ipc.CodeNotRunning, "inject: write to the agent's pty: %v", err)
	}
	return ipc.InjectResult{Written: n}, nil
}

// auditInject writes inject's audit line and log line: the caller, the
// bytes' count and hash (not the bytes: they may be a secret typed for the
// human), the outcome.
func (a *api) auditInject(ctx context.Context, p ipc.InjectParams, res any, err error) {
	c, _ := ipc.CallerFromContext(ctx)
	data := p.Bytes
	if p.Text != nil {
		data = []byte(*p.Text)
	}
	sum := sha256.Sum256(data)
	rec := store.InjectRecord{Time: time.Now().UnixMilli(), Kind: store.KindInject, Caller: &c, Bytes: len(data),
		SHA256: hex.EncodeToString(sum[:]), Submit: p.Submit, Outcome: "written"}
	rec.Session, rec.Document = a.s.Plan().SessionID, a.s.Plan().Document
	if err != nil {
		e := ipc.AsError(err)
		rec.Outcome, rec.ErrorCode, rec.Message = "refused", string(e.Code), e.Message
		if r, ok := res.(ipc.InjectResult); ok && r.Written > 0 {
			rec.Outcome = "failed"
		}
	}
	if a.audit != nil {
		if aerr := a.audit.Append(rec); aerr != nil {
			a.log.Error("audit_failed", "kind", "inject", "err", aerr)
		}
	}
	a.log.Info("inject", "caller", c.Label(), "bytes", len(data), "submit", p.Submit, "outcome", rec.Outcome, "error_code", rec.ErrorCode)
}

func (a *api) notRunning() error {
	l := a.s.facts().lifecycle
	if l == LifecycleHalted {
		return ipc.Errorf(ipc.CodeHalted, "the agent is halted after repeated failures; call resume")
	}
	return ipc.Errorf(ipc.CodeNotRunning, "no agent is running (lifecycle %s)", l)
}

func (a *api) restart(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.RestartParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	if p.Mode != "" && p.Mode != "fresh" && p.Mode != "resume" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "restart: mode %q: valid modes are fresh and resume", p.Mode)
	}
	if err := a.allow(ctx, caller.ActLifecycle, "restart"); err != nil {
		return nil, err
	}
	return restartResult(a.s.ask(ctx, control{kind: ctrlRestart, fresh: p.Mode == "fresh"}))
}

func (a *api) resume(ctx context.Context, req *ipc.Request) (any, error) {
	if err := req.DecodeParams(&struct{}{}); err != nil {
		return nil, err
	}
	if err := a.allow(ctx, caller.ActLifecycle, "resume"); err != nil {
		return nil, err
	}
	return restartResult(a.s.ask(ctx, control{kind: ctrlResume}))
}

func (a *api) stop(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.StopParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	if err := a.allow(ctx, caller.ActLifecycle, "stop"); err != nil {
		return nil, err
	}
	r, err := a.s.ask(ctx, control{kind: ctrlStop, grace: p.Graceful == nil || *p.Graceful})
	if err != nil {
		return nil, err
	}
	return ipc.StopResult{Stopped: true, EndedBy: r.endedBy}, nil
}

// restartResult is the reply to a restart or resume the run loop gave.
func restartResult(r controlReply, err error) (ipc.RestartResult, error) {
	if err != nil {
		return ipc.RestartResult{}, err
	}
	if r.err != nil {
		return ipc.RestartResult{}, ipc.Errorf(ipc.CodeSpawnFailed, "%v", r.err)
	}
	res := ipc.RestartResult{PID: r.pid, Mode: "fresh", AlreadyRunning: r.running}
	if r.resumed {
		res.Mode = "resume"
	}
	return res, nil
}

func (a *api) screen(_ context.Context, req *ipc.Request) (any, error) {
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
	snap, ok := a.display.snapshot()
	if !ok {
		return nil, ipc.Errorf(ipc.CodeNotRunning, "screen: no agent has run yet")
	}
	r := ipc.ScreenResult{Text: snap.Text, Format: p.Format, Cols: snap.Cols, Rows: snap.Rows, CursorCol: snap.CursorCol,
		CursorRow: snap.CursorRow, CursorVisible: snap.CursorOn, AltScreen: snap.AltScreen, Desynced: snap.Desynced}
	if p.Format == "ansi" {
		r.Text = snap.ANSI
	}
	return r, nil
}

// hook applies an agent hook forwarded by `sup hook` (Session.hook).
func (a *api) hook(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.HookParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	// A hook only ever affects the session whose socket it came in on,
	// and only from that session's agent (or the operator).
	if err := a.allow(ctx, caller.ActHook, "hook"); err != nil {
		return nil, err
	}
	if !ipc.KnownAgent(p.Agent) {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "hook: agent %q: valid agents are %s", p.Agent, ipc.AgentChoices())
	}
	if p.Event == "" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "hook: params need event (the hook's event name)")
	}
	if applied, why := a.s.hook(p); !applied {
		if a.server != nil { // hooks fire on every tool call: rate-limited and counted
			a.server.Warn(ipc.NoisyHookIgnored, "hook_ignored", "agent", p.Agent, "event", p.Event, "why", why)
		} else {
			a.log.Info("hook_ignored", "agent", p.Agent, "event", p.Event, "why", why)
		}
		return ipc.HookResult{Applied: false, Why: why}, nil
	}
	return ipc.HookResult{Applied: true}, nil
}

// maxSkipCooldown bounds a caller's cooldown: a longer one is surely a unit
// mistake (seconds sent as milliseconds would be tiny; the reverse huge).
const maxSkipCooldown = 24 * time.Hour

// skip moves the session to the stuck queue's tail and keeps it from
// being head for the cooldown (params, else config queue.skip_cooldown).
// The queue itself is the broker's; this is the fact it orders by.
func (a *api) skip(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.SkipParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	if err := a.allow(ctx, caller.ActControl, "skip"); err != nil {
		return nil, err
	}
	cooldown := a.s.Plan().Config.Queue.SkipCooldown
	if p.CooldownMS < 0 || time.Duration(p.CooldownMS)*time.Millisecond > maxSkipCooldown {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "skip: cooldown_ms %d: valid values are 1 to %d (24 h), or 0 for the configured %s",
			p.CooldownMS, maxSkipCooldown.Milliseconds(), cooldown)
	}
	if p.CooldownMS > 0 {
		cooldown = time.Duration(p.CooldownMS) * time.Millisecond
	}
	st, ok := a.s.skip(cooldown)
	if !ok {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "skip: the session is not waiting on the human (activity %s); only queued sessions can be skipped", st.Activity)
	}
	return ipc.SkipResult{WaitingSince: unixMilli(st.WaitingSince), SkipUntil: unixMilli(st.SkipUntil)}, nil
}

func (a *api) trigger(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.TriggerParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	r, err := a.desk.Trigger(ctx, p)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (a *api) unblock(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.UnblockParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	if err := a.allow(ctx, caller.ActControl, "unblock"); err != nil {
		return nil, err
	}
	r, err := a.desk.Unblock(p)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// cancelTrigger takes a pending trigger back (desk.Cancel).
func (a *api) cancelTrigger(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.CancelTriggerParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	return a.desk.Cancel(ctx, p)
}

// answer answers the open prompt: the desk gates, writes, releases the
// hold, waits for the ack and audits (desk.Answer; the session's side is
// deskPort.Prompt and AnswerAck, answer.go).
func (a *api) answer(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.AnswerParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	r, err := a.desk.Answer(ctx, p)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// metrics answers the desk's counters and the control socket's
// noisy-input counters (ipc_<kind>_total) in one map.
func (a *api) metrics(context.Context, *ipc.Request) (any, error) {
	m := a.desk.Metrics()
	a.counts.copyTo(m.Counters)
	if a.server != nil {
		maps.Copy(m.Counters, a.server.NoisyCounters())
	}
	return m, nil
}

func (a *api) explain(_ context.Context, req *ipc.Request) (any, error) {
	if err := req.DecodeParams(&struct{}{}); err != nil {
		return nil, err
	}
	return a.s.explain(), nil
}
