//go:build linux

package supervisor

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/crash"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// stateOwner owns a session's facts: the run loop's (the plan, the child,
// the lifecycle, the crash tracker, the spawn counts, the conversation id,
// the pane size), the agent's activity and the facts read with it
// (agentFacts) and the open prompt's identity (promptTracker). They change
// only through update, which applies one change and publishes, before it
// returns, an immutable snapshot of all of them with the next version;
// every reader — state, explain, history, the queue file, the notifier,
// events — reads one snapshot (load) and takes no lock, so it never sees a
// lifecycle from one instant with an activity from another; the desk's
// port (trigger.go, answer.go) reads through facts and the handles below,
// each call one snapshot. No read changes anything: the open prompt's id is fixed
// when the facts change, in the snapshot that carries them. Every
// publication pokes the session's one change signal (changes, changed.go)
// before update returns. The snapshot's invariants are doc.go's.
type stateOwner struct {
	// mu is held only inside update, around one change and the
	// publication of the snapshot it makes: changes are applied one at a
	// time and published in order. Nothing is taken under it (update's
	// func only touches the fields below; the poke of the change signal
	// is an atomic swap) and no reader takes it.
	mu      sync.Mutex
	run     runState
	agent   agentFacts
	prompts promptTracker
	held    bool // the watcher holds classification (setHeld)

	snap atomic.Pointer[snapshot]
	// changes is the session's change signal: publishLocked pokes it
	// after it stores each snapshot, and the session pokes it for facts
	// outside the snapshot (the screen's text, output).
	changes changes
}

// runState is the run loop's part of the facts (loop.go, spawn.go).
type runState struct {
	size           pty.Winsize // the pane's, or --size when stdin is not a terminal
	plan           *plan.Plan
	tracker        *crash.Tracker
	child          *proc.Child
	spawning       bool // a child is being started: its hooks count already
	lifecycle      string
	attempts       int // spawn attempts; the first uses the plan sup started with
	spawns         int // successful spawns; restart_count is spawns-1
	agentSessionID string
	exitStatus     int
}

// snapshot is the session's facts at one version. It is never changed
// after it is published: readers share it.
type snapshot struct {
	version uint64

	run   runFacts
	exits []ipc.ExitInfo // the crash tracker's history, oldest first
	last  crash.Exit     // its last exit (zero: none), which says when exits changed

	// st is the activity as the session presents it (the crash episode's
	// and the lifecycle's word included), but for OperatorBusy, which
	// depends on the reader's now (state).
	st    activity.State
	quiet time.Duration // the tracker's quiet window, for OperatorBusy
	// held: the watcher holds classification while a desynced screen is
	// read again (screen.Hold): screen is a verdict on a screen that may
	// be gone, and the desk's gates do not trust it (gatesOf).
	held bool

	draft          string
	lastPrompt     string
	lastPromptAt   time.Time
	lastForeground lineLook
	focused        *bool // never written after publication
	focusedAt      time.Time
	lastWord       string            // the agent's last word (the desk's loop guard)
	signals        []activity.Signal // the last signal of each source, for explain
	progressAt     time.Time
	progressWhat   string

	open   openPrompt    // the open prompt's identity, fixed by the owner
	screen screenVerdict // the classifier's last verdict
	gone   goneDialog    // the last dialog sup answered that the screen closed (noteScreen)
}

// newStateOwner is the facts of a session that has not spawned yet,
// published as version 1.
func newStateOwner(pl *plan.Plan, size pty.Winsize, resumeID string) *stateOwner {
	o := &stateOwner{
		run: runState{size: size, plan: pl, tracker: crash.NewTracker(pl.Config.Crash.Policy()),
			lifecycle: LifecycleStarting,
			// --resume-id: the first spawn resumes it, like a restart would.
			agentSessionID: resumeID},
		agent: agentFacts{act: activity.NewTracker(activity.Config{
			QuietWindow:  pl.Config.Activity.QuietWindow,
			HookHold:     pl.Config.Activity.HookHold,
			UnknownAfter: pl.Profile.UnknownAfter,
		})},
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.publishLocked()
	return o
}

// load is the current snapshot.
func (o *stateOwner) load() *snapshot { return o.snap.Load() }

// setHeld says whether the watcher holds classification (snapshot.held),
// and reports whether that changed.
func (o *stateOwner) setHeld(on bool) bool {
	changed := false
	o.update(func() bool {
		changed = o.held != on
		o.held = on
		return changed
	})
	return changed
}

// update applies change to the facts and, when it reports a change,
// publishes the next snapshot. It returns the snapshot that holds the
// change (the current one when there was none).
func (o *stateOwner) update(change func() bool) *snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !change() {
		return o.snap.Load()
	}
	return o.publishLocked()
}

// change is update for a change that always changes something, returning
// the snapshot before it and the one that holds it.
func (o *stateOwner) change(fn func()) (before, after *snapshot) {
	o.mu.Lock()
	defer o.mu.Unlock()
	before = o.snap.Load()
	fn()
	return before, o.publishLocked()
}

// presents reports whether n presents another activity than before: a
// field an `activity` event carries differs.
func (n *snapshot) presents(before *snapshot) bool {
	a, b := n.st, before.st
	return a.Activity != b.Activity || a.Reason != b.Reason || a.Summary != b.Summary || a.Source != b.Source || a.Rule != b.Rule ||
		!a.WaitingSince.Equal(b.WaitingSince) || !a.SkipUntil.Equal(b.SkipUntil) || n.open.id != before.open.id
}

// publishLocked makes and publishes the next snapshot; o.mu is held.
func (o *stateOwner) publishLocked() *snapshot {
	old := o.snap.Load()
	r := &o.run
	n := &snapshot{version: 1, quiet: o.agent.act.QuietWindow()}
	if old != nil {
		n.version = old.version + 1
	}
	n.run = runFacts{plan: r.plan, child: r.child, spawning: r.spawning, lifecycle: r.lifecycle, agentSessionID: r.agentSessionID,
		attempts: r.attempts, spawns: r.spawns, exitStatus: r.exitStatus, size: r.size, health: r.tracker.Health()}
	n.run.stableAt, n.run.stableOK = r.tracker.StableAt()
	last, ok := r.tracker.Last()
	if ok {
		n.run.lastExit = exitInfo(last.Code, last.Signal, string(last.Class), last.At)
	}
	n.last = last
	if old != nil && old.last == last {
		// The history only grows by an exit: without a new last exit it is
		// the previous snapshot's (shared, never written), not a copy of
		// history_size exits at every key.
		n.exits = old.exits
	} else {
		for _, e := range r.tracker.History() {
			n.exits = append(n.exits, *exitInfo(e.Code, e.Signal, string(e.Class), e.At))
		}
	}

	a := &o.agent
	st := o.presented()
	n.st = st
	n.draft, n.lastPrompt, n.lastPromptAt, n.lastForeground = a.draft, a.lastPrompt, a.lastPromptAt, a.lastForeground
	if a.focused != nil {
		f := *a.focused
		n.focused, n.focusedAt = &f, a.focusedAt
	}
	n.lastWord = a.act.LastWord()
	n.held = o.held
	n.signals = a.act.Last()
	n.progressAt, n.progressWhat = a.act.LastProgress()

	t := &o.prompts
	n.open = t.open(st)
	n.screen, n.gone = t.screen, t.gone

	o.snap.Store(n)
	// After the store: a waiter that wakes loads this version or a newer
	// one; before the next publication (o.mu is held): a waiter that took
	// the signal before it loaded version v is woken once v+1 is out.
	o.changes.poke()
	return n
}

// presented is the activity as the session presents it (snapshot.st);
// o.mu is held.
func (o *stateOwner) presented() activity.State {
	a := &o.agent
	st := betweenRuns(a.present(a.act.State(time.Time{})), o.run.lifecycle)
	st.OperatorBusy = false // the reader's (snapshot.state)
	return st
}

// agentRuns reports whether lifecycle l has an agent that can be busy or
// ask: starting (its hooks count while it spawns) and running.
func agentRuns(l string) bool { return l == LifecycleStarting || l == LifecycleRunning }

// betweenRuns is st as the session presents it in lifecycle l: when no
// agent runs (restarting, exited, halted, stopped), what the dead agent's
// last look said — busy mid-turn, a dialog — is no longer so: the activity
// is unknown for the lifecycle's reason until the lifecycle's own signal
// or the next agent's word, and no prompt is open. The tracker keeps what
// it was told; this is only its presentation.
func betweenRuns(st activity.State, l string) activity.State {
	if agentRuns(l) || st.Activity != activity.Busy && !activity.Prompting(st.Activity, st.Reason) {
		return st
	}
	st.Activity, st.Reason, st.Summary, st.Detail = activity.Unknown, l, "", ""
	st.Stuck, st.WaitingSince, st.PromptSince = false, time.Time{}, time.Time{}
	return st
}

// state is the presented activity at now.
func (n *snapshot) state(now time.Time) activity.State {
	st := n.st
	st.OperatorBusy = !st.LastInputAt.IsZero() && now.Sub(st.LastInputAt) < n.quiet
	return st
}

// view is the agent's facts at now.
func (n *snapshot) view(now time.Time) agentView {
	return agentView{st: n.state(now), draft: n.draft, lastPrompt: n.lastPrompt, lastPromptAt: n.lastPromptAt,
		lastForeground: n.lastForeground, focused: n.focused, focusedAt: n.focusedAt}
}

// progress is the desk's loop guard's token: the agent's last word and the
// human's last key.
func (n *snapshot) progress() string {
	return n.lastWord + "\x00" + strconv.FormatInt(n.st.LastInputAt.UnixNano(), 10)
}

// agentHandle is how the session's parts read and change the agent's
// facts (Session.agent): reads load one snapshot; changes are updates
// of the owner, each one change, and return what the snapshot holding it
// says.
type agentHandle struct{ o *stateOwner }

// state is the presented activity at now.
func (h agentHandle) state(now time.Time) activity.State { return h.o.load().state(now) }

// withPrompt reads the facts and the open prompt's identity, from one
// snapshot.
func (h agentHandle) withPrompt(now time.Time) (agentView, openPrompt) {
	n := h.o.load()
	return n.view(now), n.open
}

// observe feeds sig to the tracker.
func (h agentHandle) observe(sig activity.Signal) (changed bool, st activity.State) {
	n := h.o.update(func() bool {
		changed = h.o.agent.act.Observe(sig)
		return true // the signal is explain's last of its source even when it changed nothing
	})
	return changed, n.state(sig.At)
}

// key books a key from the human; interrupt: one that may end a turn or
// answer a prompt, which releases the hook's hold.
func (h agentHandle) key(at time.Time, interrupt bool) {
	h.o.update(func() bool { h.o.agent.key(at, interrupt); return true })
}

// releaseHold ends the hook's hold (sup typed an answer).
func (h agentHandle) releaseHold() {
	h.o.update(func() bool { h.o.agent.act.ReleaseHold(); return true })
}

// setFocused records a focus report.
func (h agentHandle) setFocused(in bool, at time.Time) {
	h.o.update(func() bool { h.o.agent.focused, h.o.agent.focusedAt = &in, at; return true })
}

// setDraft records the draft the screen shows; changed: it differs.
func (h agentHandle) setDraft(d string) (changed bool) {
	h.o.update(func() bool {
		changed = h.o.agent.draft != d
		h.o.agent.draft = d
		return changed
	})
	return changed
}

// noteForeground keeps the last look at a line-mode child's foreground.
func (h agentHandle) noteForeground(l lineLook) {
	h.o.update(func() bool {
		// An unchanged look publishes nothing: an idle supervisor's look
		// every 30 s would otherwise wake every reader of the change
		// signal (the state file) for the same facts.
		if h.o.agent.lastForeground == l {
			return false
		}
		h.o.agent.lastForeground = l
		return true
	})
}

// stall feeds a look at the screen to the stall watch (agentFacts.stall);
// changed: the activity changed. A look that is progress without changing
// the activity publishes too: explain's progress is the snapshot's.
func (h agentHandle) stall(now time.Time, after time.Duration, fp uint64, line string) (changed bool, st activity.State) {
	n := h.o.update(func() bool {
		at, what := h.o.agent.act.LastProgress()
		changed = h.o.agent.stall(now, after, fp, line)
		at2, what2 := h.o.agent.act.LastProgress()
		return changed || !at2.Equal(at) || what2 != what
	})
	return changed, n.state(now)
}

// unrecognized feeds a look at a screen no rule reads (the fallback, with
// the model's reading when one is cached) to the tracker.
func (h agentHandle) unrecognized(now, lastOutput time.Time, salient string, read *activity.Signal) (changed bool, wait time.Duration, st activity.State, ask bool) {
	n := h.o.update(func() bool {
		act := h.o.agent.act
		changed, wait = act.UnrecognizedRead(now, lastOutput, salient, read)
		ask = wait == 0 && read == nil && act.WantsReading()
		return true // the fallback's look is explain's even when it changed nothing
	})
	return changed, wait, n.state(now), ask
}

// skip moves a waiting session to the queue's tail for cooldown.
func (h agentHandle) skip(now time.Time, cooldown time.Duration) (st activity.State, ok bool) {
	h.o.update(func() bool { st, ok = h.o.agent.act.Skip(now, cooldown); return ok })
	return st, ok
}

// promptHandle is how the session's parts read and change the prompt
// tracker (Session.prompts).
type promptHandle struct{ o *stateOwner }

// noteScreen records a look at the screen (promptTracker.noteScreen) and,
// in the same update, what it says of a dialog sup answered at answered
// (zero: none): when the screen showed it and no longer shows it, the
// activity leaves needs_confirmation with the screen's verdict at once
// (screenAnswered), and the snapshot records which dialog the screen
// closed (gone), so that no snapshot shows the verdict without its
// consequence. sig is that signal; changed: it moved the activity.
func (h promptHandle) noteScreen(v screenVerdict, answered time.Time) (sig activity.Signal, changed bool) {
	h.o.update(func() bool {
		t := &h.o.prompts
		id := t.cur.id // the open prompt's id in the last snapshot
		t.noteScreen(v)
		st := h.o.presented()
		var ok bool
		if sig, ok = screenAnswered(t.open(st), st, v, answered); ok {
			changed = h.o.agent.act.Observe(sig)
			if id != "" {
				t.gone = goneDialog{id: id, at: v.At}
			}
		}
		return true
	})
	return sig, changed
}

// keysIn notes keys that may answer the dialog on screen.
func (h promptHandle) keysIn(at time.Time) {
	h.o.update(func() bool { h.o.prompts.keysIn(at); return true })
}
