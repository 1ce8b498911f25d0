//go:build linux

package supervisor

import (
	"strconv"
	"sync"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
)

// agentFacts owns what the session knows about the agent's activity
// (specs/detection.md): the activity tracker, and the facts read with it —
// the unsent draft in the input box, the pane's focus, the last prompt a
// hook reported, the tool the agent last ran (a stall's summary) and the
// last look at a line-mode child's foreground. Each method is one critical
// section under its own lock, which is a leaf but for the prompt tracker:
// withPrompt reads the open prompt's identity under it, so that readers
// fix a prompt's id in the order of the tracker states they read. The
// session's own lock (Session.mu) is never taken under it, nor it under
// Session.mu.
type agentFacts struct {
	prompts *promptTracker // the open prompt's identity (prompt.go); its lock after mu

	mu             sync.Mutex
	act            *activity.Tracker
	draft          string    // unsent text in the agent's input box, from the screen
	lastPrompt     string    // the last prompt a UserPromptSubmit-like hook reported
	lastPromptAt   time.Time // when it arrived
	work           string    // the tool the agent last ran in this turn: a stall's summary
	lastForeground lineLook  // the last look at a line-mode child's foreground
	focused        *bool     // the pane's last focus report; nil: none yet
	focusedAt      time.Time
	crash          crashEpisode // a crash loop waiting on the human (crashwait.go)
}

// agentView is one consistent read of the facts.
type agentView struct {
	st             activity.State
	draft          string
	lastPrompt     string
	lastPromptAt   time.Time
	lastForeground lineLook
	focused        *bool // a copy; nil: no report yet
	focusedAt      time.Time
}

// operatorBusy: the human is typing, or unsent text sits in the box.
func (v agentView) operatorBusy() bool { return v.st.OperatorBusy || v.draft != "" }

// state is the activity tracker's state at now.
func (a *agentFacts) state(now time.Time) activity.State {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.present(a.act.State(now))
}

// progress is the loop guard's token: the agent's last word and the
// human's last key.
func (a *agentFacts) progress() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.act.LastWord() + "\x00" + strconv.FormatInt(a.act.State(time.Time{}).LastInputAt.UnixNano(), 10)
}

// view reads the facts at now.
func (a *agentFacts) view(now time.Time) agentView {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.viewLocked(now)
}

// withPrompt reads the facts and the open prompt's identity at now.
func (a *agentFacts) withPrompt(now time.Time) (agentView, openPrompt) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v := a.viewLocked(now)
	return v, a.prompts.open(v.st)
}

// viewLocked is view; a.mu is held.
func (a *agentFacts) viewLocked(now time.Time) agentView {
	v := agentView{st: a.present(a.act.State(now)), draft: a.draft, lastPrompt: a.lastPrompt, lastPromptAt: a.lastPromptAt,
		lastForeground: a.lastForeground, focusedAt: a.focusedAt}
	if a.focused != nil {
		f := *a.focused
		v.focused = &f
	}
	return v
}

// explain reads, with the facts and the open prompt, explain's word on
// the tracker: the signals it weighed, and the last progress (when and
// what) against the stall threshold after.
func (a *agentFacts) explain(now time.Time, after time.Duration) (agentView, openPrompt, []activity.Signal, *ipc.ExplainProgress) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v := a.viewLocked(now)
	at, what := a.act.LastProgress()
	return v, a.prompts.open(v.st), a.act.Last(), &ipc.ExplainProgress{At: unixMilli(at), What: what, StallAfterMS: after.Milliseconds()}
}

// observe feeds sig to the tracker.
func (a *agentFacts) observe(sig activity.Signal) (changed bool, st activity.State) {
	a.mu.Lock()
	defer a.mu.Unlock()
	changed = a.act.Observe(sig)
	return changed, a.act.State(sig.At)
}

// key books a key from the human; interrupt: one that may end a turn or
// answer a prompt, which releases the hook's hold.
func (a *agentFacts) key(at time.Time, interrupt bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if interrupt {
		a.act.Release(at)
	} else {
		a.act.Key(at)
	}
}

// releaseHold ends the hook's hold (sup typed an answer).
func (a *agentFacts) releaseHold() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.act.ReleaseHold()
}

// setFocused records a focus report.
func (a *agentFacts) setFocused(in bool, at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.focused, a.focusedAt = &in, at
}

// setDraft records the draft the screen shows; changed: it differs.
func (a *agentFacts) setDraft(d string) (changed bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	changed = a.draft != d
	a.draft = d
	return changed
}

// noteForeground keeps the last look at a line-mode child's foreground.
func (a *agentFacts) noteForeground(l lineLook) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lastForeground = l
}

// hookPrompt records the prompt a hook reported.
func (a *agentFacts) hookPrompt(prompt string, at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lastPrompt, a.lastPromptAt = prompt, at
}

// noteHook records a hook's word for the stall: every hook is progress
// (when it has no signal of its own), and a tool call says what the agent
// is doing.
func (a *agentFacts) noteHook(p ipc.HookParams, hasSignal bool, now time.Time) (changed bool, st activity.State) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case p.ToolName != "":
		a.work = p.ToolName
		if p.Command != "" {
			a.work += ": " + activity.FirstLine(p.Command)
		}
	case turnEnd(p.Event) || p.Event == "UserPromptSubmit":
		a.work = ""
	}
	if !hasSignal {
		changed = a.act.Progress(now, "hook:"+p.Event)
	}
	return changed, a.act.State(now)
}

// stall feeds a look at the screen (fp, its fingerprint outside the
// status lines; line, the status) to the stall watch.
func (a *agentFacts) stall(now time.Time, after time.Duration, fp uint64, line string) (changed bool, st activity.State) {
	a.mu.Lock()
	defer a.mu.Unlock()
	doing := a.work
	if doing == "" {
		doing = line
	}
	changed, _ = a.act.Stall(now, after, fp, doing)
	return changed, a.act.State(now)
}

// unrecognized feeds a look at a screen no rule reads (the fallback, with
// the model's reading when one is cached) to the tracker.
func (a *agentFacts) unrecognized(now, lastOutput time.Time, salient string, read *activity.Signal) (changed bool, wait time.Duration, st activity.State, ask bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	changed, wait = a.act.UnrecognizedRead(now, lastOutput, salient, read)
	return changed, wait, a.act.State(now), wait == 0 && read == nil && a.act.WantsReading()
}

// skip moves a waiting session to the queue's tail for cooldown.
func (a *agentFacts) skip(now time.Time, cooldown time.Duration) (activity.State, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.act.Skip(now, cooldown)
}
