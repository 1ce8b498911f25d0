package desk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// Prompt is the open prompt as an answer sees it (Session.Prompt).
type Prompt struct {
	ID       string // "" when no prompt is open
	Activity string
	Summary  string
	Detail   string // the whole command (ipc.State.PromptDetail)
	Reason   string
	Rule     string
	// Since is when the prompt appeared: a key pressed before it cannot
	// be an answer in progress (specs/triggers.md, "Answers").
	Since time.Time
	// ShownAt is when the screen began to show the dialog; zero while
	// only a hook has said so.
	ShownAt time.Time
	Dialog  string // the dialog kind whose keys apply, "" when the profile has none
	// Keys are the keys that answer the dialog, nil when the profile has
	// none for it.
	Keys *Keys
	// Profile and Name, for the refusals' messages.
	Profile, Name string
	// Gates and BracketedPaste are the gates and the paste setting of the
	// same read of the session's facts: an answer's check and confirm
	// judge the prompt and the human's keys at one version (review of
	// issue 29, finding 7).
	Gates          Gates
	BracketedPaste bool
}

// Keys are the keys that answer one open dialog, as data: the session
// reads them from the profile and the screen (the options it shows), and
// the desk looks a choice up in them (For).
type Keys struct {
	// Choices are the named choices and option numbers the dialog takes.
	Choices []Choice
	// Refused are the named choices and numbers it does not take, each
	// with why ("this dialog has no such option", "this dialog's options
	// are 1, 2").
	Refused map[string]string
	// Text: any other choice is free text, pasted and then submitted by
	// a separate Enter; else it is refused with NoText.
	Text   bool
	NoText string
	// Valid lists the choices the dialog takes as prompt_choices shows
	// them (yes, no, 1-2, text): every refusal names it.
	Valid []string
}

// Choice is one choice a dialog takes.
type Choice struct {
	Name string // as the caller gives it: "yes", "2"
	Keys string // what it types
	// Option is the label of the option it picks on the screen ("" when
	// unknown), Mode the mode the whole session switches to by it ("").
	Option, Mode string
}

// For looks choice up: the keys it types and, for free text, submit (the
// text is pasted and a separate Enter follows). An error says why the
// dialog does not take it and names the valid choices.
func (k *Keys) For(choice string) (c Choice, submit bool, err error) {
	for _, c := range k.Choices {
		if c.Name == choice {
			return c, false, nil
		}
	}
	why, refused := k.Refused[choice]
	switch {
	case refused:
	case k.Text:
		return Choice{Name: choice, Keys: choice}, true, nil
	default:
		why = k.NoText
	}
	return Choice{}, false, fmt.Errorf("choice %q: %s; valid choices: %s", choice, why, strings.Join(k.Valid, ", "))
}

// AnswerSettle is how long a prompt must have been on the screen before
// an answer types into it: Claude Code's dialog ignores keys for ~150 ms
// after it appears (specs/testing.md), so an answer sent as soon as the
// prompt showed would be lost.
const AnswerSettle = 300 * time.Millisecond

// Answer answers the open prompt with choice (the `answer` method,
// specs/ipc.md): a compare-and-swap on the prompt's id, checked under the
// session's input lock right before the keys go, refused while the human
// answers it themselves (a key after the prompt appeared, or a draft),
// then the hook's hold is released as a key from the pane releases it,
// and the answer waits for the prompt to leave. One audit line per answer
// that got past its params.
func (d *Desk) Answer(ctx context.Context, p ipc.AnswerParams) (ipc.AnswerResult, error) {
	if strings.TrimSpace(p.Choice) == "" {
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeBadRequest, "answer: params need choice (yes, no, always, 1-9, or text for a dialog that takes it)")
	}
	if p.AckTimeoutMS < 0 {
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeBadRequest, "answer: ack_timeout_ms %d: must be positive (0: the default)", p.AckTimeoutMS)
	}
	ov, err := trigger.ParseOverride(p.ForceOverride, p.OverrideReason)
	if err != nil {
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeBadRequest, "answer: %v", err)
	}
	a := &answering{d: d, p: p, ov: ov, start: time.Now(), gate: trigger.GateNotEvaluated}
	a.caller, _ = ipc.CallerFromContext(ctx)
	var r ipc.AnswerResult
	if err = a.consent(); err == nil {
		r, err = a.run(ctx)
	}
	a.book(r, err)
	d.Poke() // a trigger waiting behind the prompt looks again
	if err != nil {
		return ipc.AnswerResult{}, err
	}
	return r, nil
}

// answering is one answer on its way, for the audit.
type answering struct {
	d       *Desk
	p       ipc.AnswerParams
	ov      trigger.Override
	start   time.Time
	pr      Prompt
	gate    string // the collision gate: enforced, bypassed, not_evaluated
	applied bool   // the force bypassed a busy operator
	typed   bool
	// option and mode: what the choice picked (Choice).
	option, mode string
	caller       ipc.Caller
}

// consent: answering is the operator's, or a granted agent's; a force as
// well, and no agent may claim a human's override (specs/security.md,
// "Consent is the operator's"). The prompt is read for the audit line.
func (a *answering) consent() error {
	err := a.d.sess.Allow(a.caller, caller.ActAnswer, "answer")
	if err == nil && a.ov.Requested {
		if !a.caller.IsOperator() && a.ov.Intent == trigger.IntentHuman {
			err = ipc.Errorf(ipc.CodeNotAllowed, "answer: refused for %s: no agent may claim %s (only the operator is a human to sup); nothing typed",
				a.caller.Label(), a.ov.Prefix)
		} else {
			err = a.d.sess.Allow(a.caller, caller.ActForce, "answer --force")
		}
	}
	if err != nil {
		a.pr = a.d.sess.Prompt(time.Now())
	}
	return err
}

func (a *answering) run(ctx context.Context) (ipc.AnswerResult, error) {
	d := a.d
	c := d.sess.Child()
	if c == nil {
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeNotRunning, "answer: no agent is running")
	}
	a.settle(ctx, c)
	if err := ctx.Err(); err != nil {
		// The asker hung up (or sup is stopping) before a key went: an
		// answer no one waits for is not typed (specs/ipc.md,
		// "Connection slots").
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeInternal, "answer: %v before its keys were typed; nothing typed", err)
	}
	var keys string
	var submit bool
	// check runs under the session's input lock, right before the write:
	// no key from the human and no other write can come between it and
	// the answer's keys. It reads the prompt and the gates of one
	// snapshot (Prompt), not the gates Write read apart from it.
	var keysAt uint64 // the human's keys routed when the answer's keys went (Gates.Keys)
	check := func() error {
		a.pr = d.sess.Prompt(time.Now())
		pr := a.pr
		g := pr.Gates
		switch {
		case a.p.Expect != "" && a.p.Expect != pr.ID && pr.ID == "":
			return ipc.Errorf(ipc.CodePromptChanged, "answer: prompt %s is gone (activity %s); nothing typed", a.p.Expect, pr.Activity)
		case a.p.Expect != "" && a.p.Expect != pr.ID:
			return ipc.Errorf(ipc.CodePromptChanged, "answer: the prompt changed (expected %s, now %s: %s); nothing typed", a.p.Expect, pr.ID, pr.Summary)
		case pr.ID == "":
			return ipc.Errorf(ipc.CodeNoPrompt, "answer: %s shows no prompt (activity %s); nothing typed", pr.Name, pr.Activity)
		case pr.Keys == nil:
			return ipc.Errorf(ipc.CodeBadRequest, "answer: profile %s has no answer keys for this dialog (%s); answer it in the pane", pr.Profile, pr.Rule)
		}
		c, sub, err := pr.Keys.For(a.p.Choice)
		if err != nil {
			return ipc.Errorf(ipc.CodeBadRequest, "answer: %v", err)
		}
		keys, submit, a.option, a.mode = c.Keys, sub, c.Option, c.Mode
		if submit {
			if keys, err = d.answerText(keys, pr.BracketedPaste); err != nil {
				return err
			}
		}
		busy := AnswerBusy(g, pr.Since)
		a.gate, a.applied = trigger.GateEnforced, busy && a.ov.Requested
		if a.ov.Requested {
			a.gate = trigger.GateBypassed
		}
		if busy && !a.ov.Requested {
			return ipc.Errorf(ipc.CodeOperatorBusy, "answer: the human is answering in %s's pane (a key since the prompt appeared, or a draft); nothing typed (--force with an override reason answers anyway)", pr.Name)
		}
		keysAt = g.Keys
		return nil
	}
	written, err := d.sess.Write(c, func(Gates) ([]byte, bool, error) {
		if err := check(); err != nil {
			return nil, false, err
		}
		a.typed = true
		return []byte(keys), submit, nil
	}, func(Gates) error {
		// A text answer's Enter, after the submit delay: the human's keys
		// are not held back by it, and one typed meanwhile sits with the
		// text, which an Enter now would send as theirs; a dialog that
		// replaced the one answered would take the Enter as its own
		// answer. A prompt no longer open is not that: the text itself
		// may have closed it on screen (`rm -i`'s line now ends in the
		// word typed, no longer a question), and its Enter is what
		// submits it. One read: the prompt and the gates of one snapshot.
		pr := d.sess.Prompt(time.Now())
		switch {
		case pr.Gates.Keys != keysAt:
			return fmt.Errorf("%w: the human typed in the pane", ErrSubmitWithheld)
		case pr.Gates.Stopped:
			return fmt.Errorf("%w: sup is stopping", ErrSubmitWithheld)
		case pr.ID != "" && pr.ID != a.pr.ID:
			return fmt.Errorf("%w: the prompt changed (answered %s, now %s)", ErrSubmitWithheld, a.pr.ID, promptName(pr.ID))
		}
		return nil
	})
	switch {
	case errors.Is(err, ErrSubmitWithheld):
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeSubmitWithheld, "answer: %s between the text and its Enter: the Enter was withheld; the text may sit in the agent's input box",
			strings.TrimPrefix(err.Error(), ErrSubmitWithheld.Error()+": "))
	case errors.Is(err, ErrChildGone) && err != ErrChildGone:
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeNotRunning, "answer: the agent ended %s", strings.TrimPrefix(err.Error(), ErrChildGone.Error()+" "))
	case errors.Is(err, ErrChildGone):
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeNotRunning, "answer: the agent ended before the answer was typed")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeAckTimeout, "answer: the agent did not read its input within %s", WriteTimeout)
	case err != nil:
		var ie *ipc.Error
		if errors.As(err, &ie) {
			return ipc.AnswerResult{}, err
		}
		return ipc.AnswerResult{}, ipc.Errorf(ipc.CodeNotRunning, "answer: write to the agent's pty: %v", err)
	}
	// The answer is a key like the pane's: the hook's hold ends and the
	// screen is read again (specs/detection.md, "Hook hold").
	d.sess.Released(written)
	d.log.Info("answer_written", "prompt_id", a.pr.ID, "choice", a.p.Choice, "dialog", a.pr.Dialog)
	by, activity, err := a.waitGone(ctx, c, written)
	if err != nil {
		return ipc.AnswerResult{}, err
	}
	r := ipc.AnswerResult{PromptID: a.pr.ID, Choice: a.p.Choice, Dialog: a.pr.Dialog, Summary: a.pr.Summary, PromptDetail: a.pr.Detail,
		AckedBy: by, Activity: activity, LatencyMS: time.Since(a.start).Milliseconds()}
	r.Option, r.Mode = a.option, a.mode
	return r, nil
}

// answerText is free text as an answer types it: sanitised and bounded as
// a trigger's prompt is (a control character in it could press keys the
// answer did not mean: Enter, Escape, the end of the paste), then pasted
// as a trigger is; the submit follows separately.
func (d *Desk) answerText(text string, bracketed bool) (string, error) {
	if err := trigger.CheckSize(text, d.cfg.MaxPromptBytes); err != nil {
		return "", ipc.Errorf(ipc.CodePayloadTooLarge, "answer: %v", err)
	}
	if text = trigger.Sanitize(text); strings.TrimSpace(text) == "" {
		return "", ipc.Errorf(ipc.CodeBadRequest, "answer: the text holds only control characters; nothing typed")
	}
	return paste(text, bracketed), nil
}

// AnswerDrawWait bounds how long an answer waits for the screen to show a
// dialog a hook reported before it was drawn (Claude's PermissionRequest
// comes 0.2–1 s before its dialog): keys typed before the dialog exists
// may land in the input box instead, and the screen's look before the
// dialog would read as the dialog gone. A dialog no screen rule reads is
// answered when the wait is over.
const AnswerDrawWait = 2 * time.Second

// settle waits until the open prompt is on the screen (at most
// AnswerDrawWait) and has been for AnswerSettle: it looks at each change
// of the session's facts and at the moment the settle is over, never on a
// tick.
func (a *answering) settle(ctx context.Context, c Child) {
	drawn := time.Now().Add(AnswerDrawWait)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		changed := a.d.sess.Changed()
		now := time.Now()
		pr := a.d.sess.Prompt(now)
		until := drawn // not drawn yet: the draw wait's end
		if !pr.ShownAt.IsZero() {
			until = pr.ShownAt.Add(AnswerSettle)
		}
		if pr.ID == "" || !now.Before(until) {
			return
		}
		timer.Reset(until.Sub(now))
		select {
		case <-changed:
		case <-timer.C:
		case <-c.Done():
			return
		case <-ctx.Done():
			return
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// AnswerBusy is the answer's operator gate: the human may be answering
// the prompt themselves when they pressed a key after it appeared (within
// the quiet window) or have a draft in its input. Keys from before the
// prompt cannot be an answer in progress.
func AnswerBusy(g Gates, since time.Time) bool {
	return g.Draft || (g.OperatorBusy && !g.LastKey.IsZero() && g.LastKey.After(since))
}

// waitGone waits until the prompt the answer was typed into is no longer
// the open one (Session.AnswerAck). It never types again: an answer that
// is not acknowledged is ACK_TIMEOUT.
func (a *answering) waitGone(ctx context.Context, c Child, written time.Time) (by, activity string, err error) {
	timeout := a.d.cfg.AckTimeout
	if a.p.AckTimeoutMS > 0 {
		timeout = time.Duration(a.p.AckTimeoutMS) * time.Millisecond
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		changed := a.d.sess.Changed()
		by, activity = a.d.sess.AnswerAck(a.pr.ID, written)
		if by != "" {
			return by, activity, nil
		}
		select {
		case <-changed:
		case <-c.Done():
			return "", activity, ipc.Errorf(ipc.CodeNotRunning, "answer: the agent ended after the answer was typed")
		case <-ctx.Done():
			return "", activity, ipc.Errorf(ipc.CodeInternal, "answer: %v", ctx.Err())
		case <-deadline.C:
			return "", activity, ipc.Errorf(ipc.CodeAckTimeout, "answer: typed, but the prompt is still open after %s; not retried", timeout)
		}
	}
}

// book writes the answer's audit line: one per answer that got past its
// params, refused or not.
func (a *answering) book(r ipc.AnswerResult, err error) {
	rec := store.AnswerRecord{
		Time: time.Now().UnixMilli(), Kind: store.KindAnswer, Choice: a.p.Choice, PromptID: a.pr.ID, Expect: a.p.Expect,
		Summary: a.pr.Summary, Reason: a.pr.Reason, Dialog: a.pr.Dialog, Requester: a.p.Requester, Caller: &a.caller, Option: a.option, Mode: a.mode,
		Outcome: "answered", AckedBy: r.AckedBy, Typed: a.typed, LatencyMS: time.Since(a.start).Milliseconds(),
		ForceOverrideRequested: a.ov.Requested, ForceOverrideApplied: a.applied, OverrideIntent: a.ov.Intent,
		OverrideReasonPrefix: a.ov.Prefix, OverrideReason: a.ov.Reason, CollisionGate: a.gate,
	}
	rec.Session, rec.Document = a.d.sess.Identity()
	if err != nil {
		rec.Outcome = "refused"
		if a.typed {
			rec.Outcome = "failed"
		}
		var ie *ipc.Error
		if errors.As(err, &ie) {
			rec.ErrorCode, rec.Message = string(ie.Code), ie.Message
		} else {
			rec.Message = err.Error()
		}
	}
	if aerr := a.d.audit.Append(rec); aerr != nil {
		a.d.log.Error("audit_failed", "kind", "answer", "err", aerr)
	}
	a.d.log.Info("answer", "outcome", rec.Outcome, "error_code", rec.ErrorCode, "prompt_id", rec.PromptID, "choice", rec.Choice,
		"acked_by", rec.AckedBy, "caller", a.caller.Label(), "requester", rec.Requester, "gate", rec.CollisionGate)
}

// promptName is a prompt id for a message: "none" when no prompt is open.
func promptName(id string) string {
	if id == "" {
		return "none"
	}
	return id
}
