//go:build linux

package supervisor

import (
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
)

// agentFacts is what the session knows about the agent's activity
// (specs/detection.md): the activity tracker, and the facts read with it —
// the unsent draft in the input box, the pane's focus, the last prompt a
// hook reported, the tool the agent last ran (a stall's summary), the last
// look at a line-mode child's foreground and a crash loop's episode. It is
// plain data: the state owner (state.go) holds it, changes it only under
// its one lock through these methods and publishes a snapshot after each
// change; nobody else reads it.
type agentFacts struct {
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

// agentView is one consistent read of the facts, from one snapshot.
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

// key books a key from the human; interrupt: one that may end a turn or
// answer a prompt, which releases the hook's hold.
func (a *agentFacts) key(at time.Time, interrupt bool) {
	if interrupt {
		a.act.Release(at)
	} else {
		a.act.Key(at)
	}
}

// noteHook records a hook's word for the stall: every hook is progress
// (when it has no signal of its own), and a tool call says what the agent
// is doing.
func (a *agentFacts) noteHook(p ipc.HookParams, hasSignal bool, now time.Time) (changed bool) {
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
	return changed
}

// stall feeds a look at the screen (fp, its fingerprint outside the
// status lines; line, the status) to the stall watch.
func (a *agentFacts) stall(now time.Time, after time.Duration, fp uint64, line string) (changed bool) {
	doing := a.work
	if doing == "" {
		doing = line
	}
	changed, _ = a.act.Stall(now, after, fp, doing)
	return changed
}
