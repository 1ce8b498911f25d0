//go:build linux

package supervisor

import (
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// screenVerdict is the screen classifier's last verdict, kept for
// `explain` and for an answer's acknowledgement (the prompt left the
// screen), before the ready debounce.
type screenVerdict struct {
	Rule     string
	Activity activity.Activity
	Lines    []string // what the rule's patterns matched
	At       time.Time
	// PromptAt is when the screen first showed the current prompt; zero
	// while it shows none.
	PromptAt time.Time
	// Process: the profile has no screen rules, so the verdict came from
	// the pty's foreground process group.
	Process bool
	// Undrawn: the rule read only the terminal's signals (a title, Codex's
	// state report) and the pack has a rule that sees the dialog drawn:
	// the signal can announce it before it is (classify.Pack.Announces).
	Undrawn bool
}

// explain is what the `explain` method returns.
func (s *Session) explain() ipc.ExplainResult {
	now := time.Now()
	n := s.owner.load() // every fact below is this one snapshot's
	f := n.run
	c := f.child
	v, open, signals := n.view(now), n.open, n.signals
	progress := &ipc.ExplainProgress{At: unixMilli(n.progressAt), What: n.progressWhat, StallAfterMS: f.plan.Profile.StallThreshold().Milliseconds()}
	st := v.st
	r := ipc.ExplainResult{
		Activity: string(st.Activity), Reason: st.Reason, Summary: st.Summary, Source: st.Source.String(), Rule: st.Rule,
		Since: unixMilli(st.Since), Lifecycle: f.lifecycle, PromptID: open.id,
		WaitingSince: unixMilli(st.WaitingSince), SkipUntil: unixMilli(st.SkipUntil),
		OperatorBusy: v.operatorBusy(), LastInputAt: unixMilli(st.LastInputAt), Draft: v.draft,
		LastOutputAt: unixMilli(s.display.lastOutputAt()), Signals: []ipc.ExplainSignal{}, Progress: progress,
	}
	if activity.Prompting(st.Activity, st.Reason) {
		r.PromptDetail = st.Detail
	}
	for _, sig := range signals {
		r.Signals = append(r.Signals, ipc.ExplainSignal{
			Source: sig.Source.String(), Rule: sig.Rule, Activity: string(sig.Activity), Reason: sig.Reason,
			Summary: sig.Summary, At: unixMilli(sig.At), Decided: sig.Source == st.Source && sig.Rule == st.Rule,
		})
	}
	sc := n.screen
	if v := sc; !v.At.IsZero() {
		r.Screen = &ipc.ExplainScreen{Rule: v.Rule, Activity: string(v.Activity), Lines: v.Lines, At: v.At.UnixMilli()}
		if r.Screen.Lines == nil {
			r.Screen.Lines = []string{}
		}
	}
	r.Focused = v.focused
	r.Model = s.model.explain()
	if look := v.lastForeground; c != nil && sc.Process {
		fg, _ := proc.Foreground(c.Master()) // Best effort: 0 says unknown.
		r.Process = &ipc.ExplainProcess{ChildPID: c.PID(), ForegroundGroup: fg, Wait: look.facts.Wait.String(),
			Task: look.facts.Task, Call: look.facts.Call, Rule: look.verdict.Rule, Detail: look.verdict.Detail}
	}
	return r
}
