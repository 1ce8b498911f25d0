//go:build linux

package supervisor

import (
	"context"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/classify"
	"github.com/sup-tmux/sup/supervisor/proc"
	"github.com/sup-tmux/sup/supervisor/screen"
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

// noteScreen records a classification of snap with the prompt tracker
// and returns when it was made: a screen signal carries that time, so the
// tracker's prompt and the screen's dialog begin at the same instant.
func (s *Session) noteScreen(res classify.Result, pack *classify.Pack, snap screen.Snapshot) time.Time {
	now := time.Now()
	var lines []string
	if res.Matched && pack != nil && pack.HasRules() {
		lines = pack.MatchedLines(snap, res.Rule)
	}
	v := screenVerdict{Rule: res.Rule, Activity: res.Activity, Lines: lines, At: now, Process: pack == nil || !pack.HasRules()}
	v.Undrawn = res.Matched && !v.Process && pack.Announces(res.Rule)
	if !res.Matched {
		v.Activity = activity.Unknown
	}
	s.prompts.noteScreen(v)
	return now
}

func (s *Session) handleExplain(_ context.Context, req *ipc.Request) (any, error) {
	if err := req.DecodeParams(&struct{}{}); err != nil {
		return nil, err
	}
	c := s.current()
	now := time.Now()
	stallAfter := s.Plan().Profile.StallThreshold() // before s.mu: Plan takes it
	s.mu.Lock()
	st := s.act.State(now)
	r := ipc.ExplainResult{
		Activity: string(st.Activity), Reason: st.Reason, Summary: st.Summary, Source: st.Source.String(), Rule: st.Rule,
		Since: unixMilli(st.Since), Lifecycle: s.lifecycle, PromptID: s.readPrompt(now).id,
		WaitingSince: unixMilli(st.WaitingSince), SkipUntil: unixMilli(st.SkipUntil),
		OperatorBusy: st.OperatorBusy || s.draft != "", LastInputAt: unixMilli(st.LastInputAt), Draft: s.draft,
		LastOutputAt: unixMilli(s.lastOutputAt()), Signals: []ipc.ExplainSignal{}, Progress: s.explainProgress(stallAfter),
	}
	for _, sig := range s.act.Last() {
		r.Signals = append(r.Signals, ipc.ExplainSignal{
			Source: sig.Source.String(), Rule: sig.Rule, Activity: string(sig.Activity), Reason: sig.Reason,
			Summary: sig.Summary, At: unixMilli(sig.At), Decided: sig.Source == st.Source && sig.Rule == st.Rule,
		})
	}
	sc := s.prompts.lastScreen()
	if v := sc; !v.At.IsZero() {
		r.Screen = &ipc.ExplainScreen{Rule: v.Rule, Activity: string(v.Activity), Lines: v.Lines, At: v.At.UnixMilli()}
		if r.Screen.Lines == nil {
			r.Screen.Lines = []string{}
		}
	}
	if s.focused != nil {
		f := *s.focused
		r.Focused = &f
	}
	r.Model = s.modelExplain()
	process, look := sc.Process, s.lastForeground
	s.mu.Unlock()
	if c != nil && process {
		fg, _ := proc.Foreground(c.Master()) // Best effort: 0 says unknown.
		r.Process = &ipc.ExplainProcess{ChildPID: c.PID(), ForegroundGroup: fg, Wait: look.facts.Wait.String(),
			Task: look.facts.Task, Call: look.facts.Call, Rule: look.verdict.Rule, Detail: look.verdict.Detail}
	}
	return r, nil
}
