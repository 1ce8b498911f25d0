//go:build linux

package supervisor

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/desk"
	"github.com/sup-tmux/sup/supervisor/plan"
	"github.com/sup-tmux/sup/supervisor/proc"
	"github.com/sup-tmux/sup/supervisor/store"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// The `answer` method (specs/ipc.md): answer the open prompt with the keys
// the profile gives for its dialog, as a compare-and-swap on the prompt's
// id, through the input router's lock and the operator gate, acknowledged
// when the prompt leaves, one audit line per answer.

// prompt is the open prompt as an answer sees it.
type prompt struct {
	id      string
	st      activity.State
	kind    string             // the dialog kind whose keys apply, "" when the profile has none
	keys    *plan.AnswerKeys   // nil when the profile has none for it
	options []ipc.PromptOption // the numbered options on the screen
}

// openPrompt reads the open prompt. s.mu is held.
func (s *Session) openPrompt(now time.Time) prompt {
	st := s.act.State(now)
	p := prompt{st: st}
	if st.Activity != activity.NeedsConfirmation {
		return p
	}
	if sc := s.lastScreen; sc.At.After(st.PromptSince) && sc.Activity != activity.NeedsConfirmation && sc.Activity != activity.Unknown {
		// The screen shows something else since the prompt appeared: it
		// was answered, and the tracker has yet to hear (the ready
		// debounce, a hook's hold). No prompt to answer.
		return p
	}
	text := ""
	if v := s.view.Load(); v != nil {
		text = v.model.Snapshot().Text
	}
	// The prompt appeared when the tracker saw it, or later when the
	// screen began to show it again (answered and asked anew without a
	// hook or a busy screen in between).
	since := st.PromptSince
	if at := s.lastScreen.PromptAt; at.After(since) {
		since = at
	}
	if !s.promptTextAt.Equal(since) {
		// The dialog's text as first seen: part of the id, so frozen.
		s.promptText, s.promptTextAt = text, since
	}
	p.id = activity.PromptID(st.Reason, st.Summary, s.promptText, since)
	kinds := []string{strings.TrimPrefix(st.Rule, "screen:"), st.Reason}
	if s.lastScreen.Activity == activity.NeedsConfirmation {
		kinds = append([]string{s.lastScreen.Rule}, kinds...)
	}
	p.kind, p.keys, _ = s.plan.Profile.Answers.Dialog(kinds...)
	if p.keys != nil {
		nums, labels := p.keys.OptionLines(text)
		for i := range nums {
			p.options = append(p.options, ipc.PromptOption{Choice: nums[i], Label: labels[i]})
		}
	}
	s.modelPrompt(&p) // no keys in the profile: the model's options, if it read any
	return p
}

// promptID is the open prompt's id, "" when none.
func (s *Session) promptID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.openPrompt(time.Now()).id
}

// promptState fills the prompt fields of `state`. s.mu is held.
func (s *Session) promptState(st *ipc.State, now time.Time) {
	p := s.openPrompt(now)
	st.PromptID, st.PromptOptions, st.PromptChoices = p.id, p.options, []string{}
	if st.PromptOptions == nil {
		st.PromptOptions = []ipc.PromptOption{}
	}
	if p.keys != nil {
		st.PromptChoices = p.keys.Choices()
	}
}

// answerAck is how long an answer waits for the prompt to leave when the
// caller gives no ack_timeout_ms: the trigger's ack timeout.
func (s *Session) answerAck(p ipc.AnswerParams) time.Duration {
	if p.AckTimeoutMS > 0 {
		return time.Duration(p.AckTimeoutMS) * time.Millisecond
	}
	return s.desk.Config().AckTimeout
}

func (s *Session) handleAnswer(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.AnswerParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Choice) == "" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "answer: params need choice (yes, no, always, 1-9, or text for a dialog that takes it)")
	}
	if p.AckTimeoutMS < 0 {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "answer: ack_timeout_ms %d: must be positive (0: the default)", p.AckTimeoutMS)
	}
	ov, err := trigger.ParseOverride(p.ForceOverride, p.OverrideReason)
	if err != nil {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "answer: %v", err)
	}
	a := &answering{s: s, p: p, ov: ov, start: time.Now()}
	r, err := a.run(ctx)
	a.book(r, err)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// answering is one answer on its way, for the audit.
type answering struct {
	s       *Session
	p       ipc.AnswerParams
	ov      trigger.Override
	start   time.Time
	pr      prompt
	gate    string // the collision gate: enforced, bypassed, not_evaluated
	applied bool   // the force bypassed a busy operator
	typed   bool
}

func (a *answering) run(ctx context.Context) (ipc.AnswerResult, error) {
	s := a.s
	a.gate = trigger.GateNotEvaluated
	c := s.current()
	if c == nil {
		return ipc.AnswerResult{}, s.notRunning()
	}
	s.settle()
	var keys string
	var submit bool
	// check runs under the input router's lock, right before the write:
	// no key from the human and no other write can come between it and
	// the answer's keys.
	check := func() error {
		now := time.Now()
		s.mu.Lock()
		a.pr = s.openPrompt(now)
		pl := s.plan
		s.mu.Unlock()
		switch {
		case a.p.Expect != "" && a.p.Expect != a.pr.id && a.pr.id == "":
			return ipc.Errorf(ipc.CodePromptChanged, "answer: prompt %s is gone (activity %s); nothing typed", a.p.Expect, a.pr.st.Activity)
		case a.p.Expect != "" && a.p.Expect != a.pr.id:
			return ipc.Errorf(ipc.CodePromptChanged, "answer: the prompt changed (expected %s, now %s: %s); nothing typed", a.p.Expect, a.pr.id, a.pr.st.Summary)
		case a.pr.id == "":
			return ipc.Errorf(ipc.CodeNoPrompt, "answer: %s shows no prompt (activity %s); nothing typed", pl.Name, a.pr.st.Activity)
		case a.pr.keys == nil:
			return ipc.Errorf(ipc.CodeBadRequest, "answer: profile %s has no answer keys for this dialog (%s); answer it in the pane", pl.Profile.Name, a.pr.st.Rule)
		}
		var err error
		if keys, submit, err = a.pr.keys.Keys(a.p.Choice); err != nil {
			return ipc.Errorf(ipc.CodeBadRequest, "answer: %v", err)
		}
		busy := deskPort{s}.Gates(now).OperatorBusy
		a.gate, a.applied = trigger.GateEnforced, busy && a.ov.Requested
		if a.ov.Requested {
			a.gate = trigger.GateBypassed
		}
		if busy && !a.ov.Requested {
			return ipc.Errorf(ipc.CodeOperatorBusy, "answer: the human is typing in %s's pane (or has a draft); nothing typed (--force with an override reason answers anyway)", pl.Name)
		}
		return nil
	}
	err := s.in.writeChecked(c.Master(), check, func(w *os.File) error {
		a.typed = true
		if _, err := w.Write([]byte(keys)); err != nil || !submit {
			return err
		}
		time.Sleep(s.Plan().Profile.SubmitDelay) // an Enter with the text would be a newline
		_, err := w.Write([]byte{'\r'})
		return err
	}, desk.WriteTimeout)
	switch {
	case errors.Is(err, errNoChild):
		return ipc.AnswerResult{}, s.notRunning()
	case errors.Is(err, os.ErrDeadlineExceeded):
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeAckTimeout, "answer: the agent did not read its input within %s", desk.WriteTimeout)
	case err != nil:
		var ie *ipc.Error
		if errors.As(err, &ie) {
			return ipc.AnswerResult{}, err
		}
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeNotRunning, "answer: write to the agent's pty: %v", err)
	}
	s.log.Info("answer_written", "prompt_id", a.pr.id, "choice", a.p.Choice, "dialog", a.pr.kind)
	by, st, err := s.waitPromptGone(ctx, c, a.pr.id, s.answerAck(a.p))
	if err != nil {
		return ipc.AnswerResult{}, err
	}
	return ipc.AnswerResult{PromptID: a.pr.id, Choice: a.p.Choice, Dialog: a.pr.kind, Summary: a.pr.st.Summary,
		AckedBy: by, Activity: string(st.Activity), LatencyMS: time.Since(a.start).Milliseconds()}, nil
}

// answerSettle is how long a prompt must have been on the screen before
// an answer types into it: Claude Code's dialog ignores keys for ~150 ms
// after it appears (specs/testing.md), so an answer sent as soon as the
// prompt showed would be lost.
const answerSettle = 300 * time.Millisecond

// settle waits until the prompt the screen shows is answerSettle old.
func (s *Session) settle() {
	s.mu.Lock()
	at := s.lastScreen.PromptAt
	s.mu.Unlock()
	if d := answerSettle - time.Since(at); !at.IsZero() && d > 0 {
		time.Sleep(d)
	}
}

// waitPromptGone waits until the prompt id is no longer the open prompt's:
// the prompt left the screen (the screen classifier no longer sees a
// prompt), or a hook or the tracker moved the session on. It never types
// again: an answer that is not acknowledged is ACK_TIMEOUT.
func (s *Session) waitPromptGone(ctx context.Context, c *proc.Child, id string, timeout time.Duration) (string, activity.State, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	written := time.Now()
	for {
		s.mu.Lock()
		p := s.openPrompt(time.Now())
		screenGone := s.lastScreen.At.After(written) && s.lastScreen.Activity != activity.NeedsConfirmation
		s.mu.Unlock()
		switch {
		case p.id == id:
		case p.st.Source == activity.SourceHook && p.st.Since.After(written):
			return "hook", p.st, nil
		case screenGone:
			return "screen", p.st, nil
		default:
			return "activity", p.st, nil
		}
		select {
		case <-tick.C:
		case <-c.Done():
			return "", p.st, ipc.Errorf(ipc.CodeNotRunning, "answer: the agent ended after the answer was typed")
		case <-ctx.Done():
			return "", p.st, ipc.Errorf(ipc.CodeInternal, "answer: %v", ctx.Err())
		case <-deadline.C:
			return "", p.st, ipc.Errorf(ipc.CodeAckTimeout, "answer: typed, but the prompt is still open after %s; not retried", timeout)
		}
	}
}

// book writes the answer's audit line: one per answer that got past its
// params, refused or not.
func (a *answering) book(r ipc.AnswerResult, err error) {
	rec := store.AnswerRecord{
		Time: time.Now().UnixMilli(), Kind: store.KindAnswer, Choice: a.p.Choice, PromptID: a.pr.id, Expect: a.p.Expect,
		Summary: a.pr.st.Summary, Reason: a.pr.st.Reason, Dialog: a.pr.kind, Requester: a.p.Requester,
		Outcome: "answered", AckedBy: r.AckedBy, Typed: a.typed, LatencyMS: time.Since(a.start).Milliseconds(),
		ForceOverrideRequested: a.ov.Requested, ForceOverrideApplied: a.applied, OverrideIntent: a.ov.Intent,
		OverrideReasonPrefix: a.ov.Prefix, OverrideReason: a.ov.Reason, CollisionGate: a.gate,
	}
	rec.Session, rec.Document = deskPort{a.s}.Identity()
	if err != nil {
		rec.Outcome = "refused"
		if a.typed {
			rec.Outcome = "failed"
		}
		var ie *ipc.Error
		if errors.As(err, &ie) {
			rec.ErrorCode, rec.Message = ie.Code, ie.Message
		} else {
			rec.Message = err.Error()
		}
	}
	if aerr := a.s.audit.Append(rec); aerr != nil {
		a.s.log.Error("audit_failed", "kind", "answer", "err", aerr)
	}
	a.s.log.Info("answer", "outcome", rec.Outcome, "error_code", rec.ErrorCode, "prompt_id", rec.PromptID, "choice", rec.Choice,
		"acked_by", rec.AckedBy, "requester", rec.Requester, "gate", rec.CollisionGate)
}

// writeChecked runs check and then write under the router's lock, so no
// key from the pane and no other injection lands between them; check's
// error is returned as is and nothing is written. It fails with errNoChild
// once master is not the running child's.
func (r *inputRouter) writeChecked(master *os.File, check func() error, write func(*os.File) error, timeout time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.master == nil || r.master != master {
		return errNoChild
	}
	if err := check(); err != nil {
		return err
	}
	r.master.SetWriteDeadline(time.Now().Add(timeout)) // Best effort: a pollable master supports it.
	defer r.master.SetWriteDeadline(time.Time{})
	return write(r.master)
}
