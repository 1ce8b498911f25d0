//go:build linux

package supervisor

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/desk"
)

// The session's side of the `answer` method (specs/ipc.md): the desk
// (desk.Answer) gates, writes, releases the hold, waits for the ack and
// audits; the session says what the open prompt is (its identity from the
// prompt tracker, its keys from the profile, its options from the screen)
// and what shows it is gone.

// prompt is the open prompt as the session reads it.
type prompt struct {
	openPrompt
	st      activity.State
	kind    string             // the dialog kind whose keys apply, "" when the profile has none
	keys    *plan.AnswerKeys   // nil when the profile has none for it
	options []ipc.PromptOption // the numbered options on the screen
	// numbers: the dialog takes option numbers now (the profile's keys
	// say digits pick options, and the screen shows some, or the profile
	// cannot read them).
	numbers bool
}

// promptOf is the open prompt the tracker state st and its identity open
// show, answered with pl's profile's keys and the options on the screen.
// It reads the other owners (the prompt tracker's last verdict, the
// screen, the model reader) and fixes nothing: the identity is open's.
func (s *Session) promptOf(st activity.State, open openPrompt, sc screenVerdict, pl *plan.Plan) prompt {
	p := prompt{st: st, openPrompt: open}
	if p.id == "" {
		return p
	}
	if st.Reason == activity.ReasonAsked {
		// The question's answer is the next turn, typed text: the
		// profile's `asked:` keys, else free text (any agent takes a
		// typed turn, so a profile need not say).
		if p.kind, p.keys, _ = pl.Profile.Answers.Dialog(activity.ReasonAsked); p.keys == nil {
			p.kind, p.keys = activity.ReasonAsked, askedKeys
		}
		return p
	}
	kinds := []string{strings.TrimPrefix(st.Rule, "screen:"), st.Reason}
	if sc.Activity == activity.NeedsConfirmation {
		kinds = append([]string{sc.Rule}, kinds...)
	}
	p.kind, p.keys, _ = pl.Profile.Answers.Dialog(kinds...)
	if p.keys == nil {
		s.model.prompt(&p) // no keys in the profile: the model's options, if it read any
		return p
	}
	nums, labels := p.keys.OptionLines(s.display.text())
	for i := range nums {
		p.options = append(p.options, ipc.PromptOption{Choice: nums[i], Label: labels[i]})
	}
	p.numbers = p.keys.Numbers && (len(p.options) > 0 || !p.keys.ReadsOptions())
	return p
}

// askedKeys answer a question a finished turn asked when the profile has
// no `asked:` keys: free text, typed as the next turn.
var askedKeys = &plan.AnswerKeys{Text: true}

// choices are the choices the open dialog takes: the profile's named keys,
// the option numbers the dialog shows (prompt_options lists them; "1-9"
// when the profile cannot read them), and text. It is prompt_choices and
// the list every refusal names.
func (p prompt) choices() []string {
	if p.keys == nil {
		return []string{}
	}
	out := []string{}
	for _, c := range p.keys.Choices() {
		switch {
		case c != "1-9":
			out = append(out, c)
		case p.numbers && len(p.options) > 0:
			out = append(out, optionNumbers(p.options))
		case p.numbers:
			out = append(out, c)
		}
	}
	return out
}

// optionNumbers names the options' numbers: "1-3" for a run from 1,
// else the numbers ("1, 2, 5").
func optionNumbers(opts []ipc.PromptOption) string {
	nums := make([]string, len(opts))
	run := true
	for i, o := range opts {
		nums[i] = o.Choice
		run = run && o.Choice == strconv.Itoa(i+1)
	}
	if run && len(opts) > 1 {
		return "1-" + nums[len(nums)-1]
	}
	return strings.Join(nums, ", ")
}

// answerKeys are the keys that answer choice, refusing what the dialog on
// the screen does not offer. Every refusal names p.choices(), the list
// prompt_choices shows: one truth about what the dialog takes.
func (p prompt) answerKeys(choice string) (string, bool, error) {
	valid := p.choices()
	if len(choice) == 1 && choice[0] >= '1' && choice[0] <= '9' && p.keys.Numbers {
		if !p.numbers {
			return "", false, &plan.ChoiceError{Choice: choice, Why: "this dialog shows no numbered options", Valid: valid}
		}
		if len(p.options) > 0 && !slices.ContainsFunc(p.options, func(o ipc.PromptOption) bool { return o.Choice == choice }) {
			var nums []string
			for _, o := range p.options {
				nums = append(nums, o.Choice)
			}
			return "", false, &plan.ChoiceError{Choice: choice, Why: "this dialog's options are " + strings.Join(nums, ", "), Valid: valid}
		}
	}
	keys, submit, err := p.keys.Keys(choice)
	if ce, ok := err.(*plan.ChoiceError); ok {
		ce.Valid = valid
	}
	return keys, submit, err
}

// picked is what choice picks on the dialog: the label of the option its
// keys select (a digit, or a named choice whose keys are one) and the
// mode that option switches the session to (the profile's mode pattern).
func (p prompt) picked(choice string) (option, mode string) {
	keys, submit, err := p.keys.Keys(choice)
	if err != nil || submit {
		return "", ""
	}
	for _, o := range p.options {
		if o.Choice == keys || o.Choice == choice && len(choice) == 1 {
			return o.Label, p.keys.ModeOf(o.Label)
		}
	}
	return "", ""
}

// Prompt: the open prompt for the desk's answer.
func (p deskPort) Prompt(now time.Time) desk.Prompt {
	s := p.s
	n := s.owner.load() // one snapshot: the activity, the prompt's id and the screen's verdict of one version
	pl := n.run.plan
	v := n.view(now)
	pr := s.promptOf(v.st, n.open, n.screen, pl)
	d := desk.Prompt{ID: pr.id, Activity: string(pr.st.Activity), Summary: pr.st.Summary, Detail: pr.st.Detail, Reason: pr.st.Reason, Rule: pr.st.Rule,
		Since: gateSince(pr), ShownAt: pr.shownAt, Dialog: pr.kind, Profile: pl.Profile.Name, Name: pl.Name,
		Gates: p.gatesFrom(n, v), BracketedPaste: p.bracketedPaste()}
	if pr.keys != nil {
		d.Keys = pr.deskKeys()
	}
	return d
}

// namedChoices are the choices a profile's answer keys may name
// (AnswerKeys.Keys), and the option numbers.
var namedChoices = []string{plan.ChoiceYes, plan.ChoiceNo, plan.ChoiceAlways, plan.ChoiceEnter, "1", "2", "3", "4", "5", "6", "7", "8", "9"}

// deskKeys are p's keys as the desk takes them (desk.Keys): every named
// choice and number looked up once, here, by the one rule (answerKeys),
// so the desk's lookup and prompt_choices never disagree.
func (p prompt) deskKeys() *desk.Keys {
	k := &desk.Keys{Text: p.keys.Text, Valid: p.choices(), Refused: map[string]string{}}
	for _, c := range namedChoices {
		keys, submit, err := p.answerKeys(c)
		var ce *plan.ChoiceError
		switch {
		case errors.As(err, &ce):
			k.Refused[c] = ce.Why
		case err != nil:
			k.Refused[c] = err.Error()
		case !submit: // a choice typed as text is not one of the dialog's
			option, mode := p.picked(c)
			k.Choices = append(k.Choices, desk.Choice{Name: c, Keys: keys, Option: option, Mode: mode})
		}
	}
	if !k.Text {
		// Any word that is not a named choice: its refusal reads the same.
		_, _, err := p.answerKeys("\x00")
		var ce *plan.ChoiceError
		if errors.As(err, &ce) {
			k.NoText = ce.Why
		}
	}
	return k
}

// Released: keys that answer the prompt went in, as a key from the pane
// that may answer it (keyPressed).
func (p deskPort) Released(at time.Time) { p.s.release(at) }

// AnswerAck: the prompt id is no longer the open one — a hook moved the
// session on after the answer ("hook"), the screen closed that dialog
// since it ("screen"), or the tracker moved on ("activity"). A dialog the
// screen no longer shows is gone whatever the profile (a program that
// reads one key and clears its screen): the update that records the
// screen's verdict moves the activity off needs_confirmation and records
// the dialog it closed (promptHandle.noteScreen, screenAnswered), so the
// snapshot that says "screen" carries the activity that followed. This
// only reads, one snapshot.
func (p deskPort) AnswerAck(id string, written time.Time) (string, string) {
	n := p.s.owner.load() // one snapshot: the activity, the prompt's id and the closed dialog of one version
	v, open := n.view(time.Now()), n.open
	screenGone := id != "" && n.gone.id == id && n.gone.at.After(written)
	switch {
	case v.st.Source == activity.SourceHook && v.st.Since.After(written):
		return "hook", string(v.st.Activity)
	case screenGone:
		return "screen", string(v.st.Activity)
	case open.id != id:
		return "activity", string(v.st.Activity)
	}
	return "", string(v.st.Activity)
}

// gateSince is when the prompt appeared for the answer's operator gate:
// the earlier of the prompt tracker's appearance and the activity's. A
// key of the human's own can make the screen read the dialog as asked anew
// (Claude redraws its dialog on Down, and a look mid-redraw is not the
// dialog): that key must still count as the human at the dialog.
func gateSince(pr prompt) time.Time {
	if ps := pr.st.PromptSince; !ps.IsZero() && ps.Before(pr.since) {
		return ps
	}
	return pr.since
}
