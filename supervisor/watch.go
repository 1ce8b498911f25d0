//go:build linux

package supervisor

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/classify"
	"github.com/sup-tmux/sup/supervisor/foreground"
	"github.com/sup-tmux/sup/supervisor/proc"
	"github.com/sup-tmux/sup/supervisor/screen"
	"github.com/sup-tmux/sup/supervisor/termreply"
)

const (
	// classifyEvery throttles classification while the screen changes
	// quickly (a TUI repainting at 60 fps): a snapshot and the rules cost
	// about 0.1 ms, so this keeps them far below 1% of a core.
	classifyEvery = 50 * time.Millisecond
	// frameRetry waits out a half-drawn synchronized frame.
	frameRetry = 20 * time.Millisecond
)

// watcher looks at one child for the session: its output (tap), its
// screen or foreground process (screen) and its stall (stall), each in its
// own goroutine until the child ends, and tells the session what it sees:
// the activity tracker's signals through observe, the rest through the
// agent facts' one-critical-section methods (setDraft, noteForeground,
// unrecognized, stall) — it takes no lock of its own. spawn makes one per
// child.
type watcher struct {
	s    *Session
	c    *proc.Child
	v    *view
	pack *classify.Pack
	// loginShell is the child's shell name when it is an interactive
	// shell (interactiveShell), "" otherwise: at its own prompt it asks
	// nothing.
	loginShell string

	// The last screen a line-mode look copied (snapshot, program.go);
	// the watcher's goroutine alone uses them.
	snap    screen.Snapshot
	snapKey snapKey
	snapOK  bool
}

// screen classifies the child's screen each time the screen model has
// caught up with the output, until the child ends. needs_confirmation is
// reported at once; ready only once the output has been quiet for the
// debounce, because an agent between two bursts of output looks idle. A
// profile without screen rules is read from its foreground process
// instead (lineVerdict), looked at again while it works quietly.
func (w *watcher) screen(debounce, busyWindow time.Duration) {
	s, c, v, pack := w.s, w.c, w.v, w.pack
	var last time.Time
	// The first look comes without output: a child that prints nothing
	// (a headless cat, a script waiting on input()) is read from its
	// foreground process too; a busy one is looked at again as it works.
	recheck := time.NewTimer(lineRecheckMin)
	defer recheck.Stop()
	quietPoll := lineRecheckMin
	// hold keeps verdicts off a desynced screen (specs/screen.md,
	// "Classification waits for a whole screen"); line mode's kernel
	// verdict does not read the screen and lineLook skips its screen part.
	var hold screen.Hold
	// The hold is published (snapshot.held) so the desk's gates do not
	// trust the verdict from before it; a watcher that ends (its child
	// did) ends its hold.
	defer func() {
		if s.owner.setHeld(false) {
			s.factsChanged()
		}
	}()
	// trim gives the heap's free pages back once looks stop (heapTrim):
	// armed by every look while there is something to trim, so it fires
	// once after a burst, never while nothing happens.
	trim := time.NewTimer(trimAfter)
	defer trim.Stop()
	for {
		select {
		case <-v.kick:
			s.factsChanged() // a delivery waiting for a marker looks now
		case <-recheck.C:
		case <-trim.C:
			heapTrim.trim()
			continue
		case <-c.Done():
			return
		}
		if heapTrim.due() {
			// Only when there is something to trim: an idle look that
			// allocated little would otherwise wake the process again
			// 2 s later for nothing.
			trim.Reset(trimAfter)
		}
		if wait := classifyEvery - time.Since(last); wait > 0 {
			recheck.Reset(wait)
			continue
		}
		last = time.Now()
		var res classify.Result
		var at time.Time
		var snap screen.Snapshot
		var program bool // a program (not the login shell) reads its terminal, no rule reads it
		if v.lineMode {
			var again time.Duration
			var skip bool
			res, at, again, snap, program, skip = w.lineLook(busyWindow, &quietPoll)
			if again > 0 {
				recheck.Reset(again)
			}
			if skip {
				continue
			}
		} else {
			snap = v.model.Snapshot()
			if snap.InFrame {
				recheck.Reset(frameRetry)
				continue
			}
			ok, began, held := hold.Look(snap, time.Now())
			if !ok {
				if began {
					s.log.Info("classify_held", "reason", "screen desynced after a gap", "offset", snap.Offset)
					if s.owner.setHeld(true) {
						s.factsChanged() // a trigger between its paste and its Enter looks again
					}
				}
				continue // the model's next OnIdle looks again
			} else if held > 0 {
				s.log.Info("classify_resumed", "held_ms", held.Milliseconds(), "offset", snap.Offset)
			}
			res = pack.Classify(snap)
			at = w.noteScreen(res, pack, snap)
			s.agent.setDraft(res.Draft) // a change publishes: a deferred trigger may go now
			if !res.Matched {
				// The fallback is for packs only (specs/detection.md).
				if wait := w.modelLook(snap, classify.Salient(snap)); wait > 0 {
					recheck.Reset(wait)
				}
				w.unhold(held)
				continue
			}
			w.unhold(held)
			if res.Activity != activity.NeedsConfirmation {
				s.model.forget() // a rule reads this screen: no reading of it
			}
		}
		if res.Activity == activity.Ready {
			d := debounce
			if s.agent.state(time.Now()).Activity == activity.NeedsConfirmation {
				// From a prompt the screen goes to ready when the prompt
				// was declined; the ready between two bursts of a turn
				// the debounce guards against cannot follow a dialog.
				d = min(d, promptDebounce)
			}
			d = w.afterAnswer(d, s.display.lastOutputAt())
			quiet := time.Since(s.display.lastOutputAt())
			if quiet < d {
				recheck.Reset(d - quiet)
				continue
			}
		}
		s.observe(activity.Signal{Source: activity.SourceScreen, Rule: "screen:" + res.Rule, Activity: res.Activity,
			Reason: res.Reason, Summary: res.Summary, Stuck: activity.StuckFor(res.Activity, res.Reason), At: at})
		switch {
		case program:
			// The model may read a program's screen no rule reads, like
			// an agent's unknown dialog (model.go); never the login
			// shell's prompt.
			if wait := w.modelLook(snap, res.Summary); wait > 0 {
				recheck.Reset(wait)
			}
		case !v.lineMode:
			// After the rule's word is in: a dialog without a summary
			// may ask the model for one (model.go).
			if wait := w.modelSummary(snap, res.Activity); wait > 0 {
				recheck.Reset(wait)
			}
		}
	}
}

// promptDebounce is the ready debounce when the activity is
// needs_confirmation: a declined prompt reads ready within a second
// (specs/detection.md, "Hook hold").
const promptDebounce = 250 * time.Millisecond

// afterAnswer shortens a wait on quiet output to promptDebounce when the
// output is the program's reaction to an answer sup typed (the dialog
// clearing, the answer's echo): whether it waits again is due sooner
// than after a burst of its own work (specs/detection.md, "Hook hold").
func (w *watcher) afterAnswer(wait time.Duration, lastOut time.Time) time.Duration {
	if ans := w.s.display.answeredAt(); !ans.IsZero() && !lastOut.Before(ans) && lastOut.Sub(ans) < wait {
		return min(wait, promptDebounce)
	}
	return wait
}

// How often a program that works without printing is looked at again: from
// lineRecheckMin, four times longer each time (0.1, 0.4, 1.6, 6.4, 25.6 s)
// to lineRecheckMax while it stays busy. A program
// that waits for the human is not looked at until it prints or a key comes.
// Any event (output, a key, a hook's verdict, the child's exit) looks at
// once, so the long tail only costs a quiet program that starts reading
// without printing a prompt; it keeps an idle `sleep` at one look (a few
// small /proc reads, specs/detection.md "What a look costs") a minute.
// 60 s, not 30 (issue 30, second pass): on the 2-core VM a look and the
// Go runtime's wake-up around it cost ~1.5 ms of CPU, and 200 idle
// supervisors at two looks a minute were 1.25 % of a core, over the
// goal of 1 %.
const (
	lineRecheckMin = 100 * time.Millisecond
	lineRecheckMax = 60 * time.Second
)

// lineLook is the last look at a line-mode child's foreground group, for
// explain.
type lineLook struct {
	facts   foreground.Facts
	verdict foreground.Verdict
}

// lineVerdict is the rule for a profile without screen rules (specs/
// detection.md, "Any program"): busy while the output is recent or the
// foreground process group is not blocked reading the terminal, ready when
// it is and the output is quiet. again is when to look next (0: not until
// something happens).
func (w *watcher) lineVerdict(facts foreground.Facts, busyWindow time.Duration, poll *time.Duration) (res classify.Result, again time.Duration) {
	s, c := w.s, w.c
	now := time.Now()
	lastOut := time.Time{}
	if at := s.display.lastOutputAt(); !at.Before(c.StartedAt()) {
		lastOut = at
	}
	if busyWindow <= 0 {
		busyWindow = foreground.DefaultBusyWindow
	}
	busyWindow = w.afterAnswer(busyWindow, lastOut)
	v := foreground.Decide(facts, lastOut, now, busyWindow)
	s.agent.noteForeground(lineLook{facts, v})
	res = classify.Result{Activity: activity.Ready, Reason: v.Reason, Rule: v.Rule, Matched: true}
	switch {
	case !v.Busy:
		*poll = lineRecheckMin
		return res, 0
	case v.Rule == foreground.RuleRecentOutput:
		*poll = lineRecheckMin
		again = lastOut.Add(busyWindow).Sub(now) + time.Millisecond
	default:
		again = *poll
		*poll = min(4**poll, lineRecheckMax)
	}
	res.Activity = activity.Busy
	return res, again
}

// tap is the pump's tap for the running child: it never blocks (Feed copies
// into a bounded queue and returns) — but for a cursor query when sup
// answers the queries itself, which waits for the model to catch up.
func (w *watcher) tap() func([]byte) {
	s, c, v := w.s, w.c, w.v
	return func(p []byte) {
		s.display.wrote(len(p)) // before Feed: see display.wrote
		v.model.Feed(p)
		if v.replies != nil {
			w.answerQueries(c, v.replies.Feed(p))
		}
	}
}

// answerQueries writes sup's replies to the child's queries (DA1, DSR,
// cursor position, OSC 10/11) when nobody else can: headless, detached or
// piped, some agents wait for them (specs/detection.md, "Terminal queries
// and replies"). Each is logged as sup's.
func (w *watcher) answerQueries(c *proc.Child, replies []termreply.Reply) {
	s := w.s
	for _, r := range replies {
		s.log.Info("terminal_reply", "name", r.Name, "by", "sup")
		go s.in.replyTo(c.Master(), r.Bytes)
	}
}

// noteScreen records a classification of snap with the prompt tracker
// and returns when it was made: a screen signal carries that time, so the
// tracker's prompt and the screen's dialog begin at the same instant.
func (w *watcher) noteScreen(res classify.Result, pack *classify.Pack, snap screen.Snapshot) time.Time {
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
	w.s.noteVerdict(v) // an answered dialog gone moves the activity in the same update
	return now
}

// modelLook is the watcher's call for a screen no rule read (model.go):
// the fallback, with the cached reading standing in for it, and a
// question to the model once the fallback has called the screen one. It returns when to look
// again (0: no need).
func (w *watcher) modelLook(snap screen.Snapshot, salient string) time.Duration {
	s := w.s
	hash, read := s.model.look(snap)
	changed, wait, st, ask := s.agent.unrecognized(time.Now(), s.display.lastOutputAt(), salient, read)
	if changed {
		if st.Source == activity.SourceModel {
			s.counts.inc(detectionCounter(st.Source.String()))
		}
		s.activityChanged()
	}
	if ask {
		s.model.ask(hash, snap.Text, s.display.lookAgain)
	}
	return wait
}

// modelSummary asks for a summary of a dialog a rule knows and reads none
// from (model.summaries), once the screen is as quiet as the fallback
// wants. It returns when to look again (0: no need).
func (w *watcher) modelSummary(snap screen.Snapshot, res activity.Activity) time.Duration {
	s := w.s
	if s.model == nil || !s.model.client.Config().Summaries || res != activity.NeedsConfirmation {
		s.model.forget()
		return 0
	}
	hash, _ := s.model.look(snap)
	st := s.agent.state(time.Now())
	if st.Summary != "" || st.Activity != activity.NeedsConfirmation {
		return 0
	}
	after := s.Plan().Profile.UnknownAfter
	if after <= 0 {
		after = activity.DefaultUnknownAfter
	}
	if quiet := time.Since(s.display.lastOutputAt()); quiet < after {
		return after - quiet
	}
	s.model.ask(hash, snap.Text, s.display.lookAgain)
	return 0
}

// stallPoll is how often the stall watch looks at the screen: a twentieth
// of stall_after, within these bounds (a snapshot costs ~0.1 ms).
const (
	stallPollMin = 100 * time.Millisecond
	stallPollMax = 5 * time.Second
)

// stall looks at c's screen until c ends: a new line outside the
// profile's status lines is progress (activity.Lines); a busy session
// with none (and no hook) for after is stalled. Profiles without a pack
// (a shell) have no status lines to tell a spinner from work, and are not
// watched. The watch runs only while the agent is busy (stalled
// included): otherwise its ticker is stopped and it waits for the
// activity to change, so an idle agent costs it no wake-up.
func (w *watcher) stall(status activity.StatusLines, after time.Duration) {
	s, c, v := w.s, w.c, w.v
	if after <= 0 || v.lineMode {
		return
	}
	period := min(max(after/20, stallPollMin), stallPollMax)
	tick := time.NewTicker(period)
	defer tick.Stop()
	lines := activity.NewLines(status)
	var lastAdded string // the line the fingerprint's last change added
	for {
		if s.agent.state(time.Now()).Activity != activity.Busy {
			tick.Stop()
			select {
			case <-c.Done():
				return
			case <-v.activity:
			}
			tick.Reset(period)
			continue
		}
		select {
		case <-c.Done():
			return
		case <-tick.C:
		case <-v.activity:
			continue // still busy? look again above
		}
		snap := v.model.Snapshot()
		if snap.InFrame || snap.Desynced {
			continue // half a frame is no change; a desynced screen is no evidence
		}
		fp, line, added := lines.Look(snap.Text)
		if added != "" {
			lastAdded = added
		}
		changed, st := s.agent.stall(time.Now(), after, fp, line)
		if changed && st.Rule == activity.ProgressRule {
			// What lifted the stall, for whoever reads the log after a
			// stall that should have held.
			s.log.Info("stall_lifted", "by", "screen", "new_line", lastAdded)
		}
		if changed {
			s.activityChanged()
		}
	}
}

// trimAfter is how long after its last look (output, a key, a hook, a
// recheck) a supervisor returns its free heap to the kernel, and
// trimMinAlloc how much it must have allocated since the last return for
// that to be worth a collection (specs/performance.md, "Idle memory").
const (
	trimAfter    = 2 * time.Second
	trimMinAlloc = 1 << 20
)

// heapTrim is the process's one memory trimmer: every watcher asks it, at
// most one child runs at a time, and the heap is the process's.
var heapTrim = &memTrim{sample: []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}}

// memTrim returns the heap's free pages to the kernel after a burst of
// work. The runtime lets the heap reach 4 MB before its first collection
// and returns pages under its goal only slowly, so an idle supervisor
// otherwise held its start-up's garbage (config and profile parsing,
// rules compiled) for good (specs/performance.md, "Idle memory").
type memTrim struct {
	mu     sync.Mutex
	last   uint64 // heap bytes allocated in all, at the last trim
	sample []metrics.Sample
}

// due reports whether at least trimMinAlloc was allocated since the last
// trim: whether a trim would collect.
func (t *memTrim) due() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dueLocked()
}

func (t *memTrim) dueLocked() bool {
	metrics.Read(t.sample)
	return t.sample[0].Value.Uint64()-t.last >= trimMinAlloc
}

// trim collects and returns free memory if at least trimMinAlloc was
// allocated since the last time; it reports whether it did.
func (t *memTrim) trim() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.dueLocked() {
		return false
	}
	debug.FreeOSMemory()
	// The burst's code and tables were mapped too: hand them back to the
	// page cache (dropExecPages). Only here, not at every quiet spell:
	// reading smaps costs a few ms.
	dropExecPages()
	metrics.Read(t.sample)
	t.last = t.sample[0].Value.Uint64()
	return true
}

// unhold ends the published hold when this look ended it (held > 0),
// after the verdict on the whole screen was applied (noteScreen): the
// desk's gates never see the verdict from before the flood as current.
func (w *watcher) unhold(held time.Duration) {
	if held > 0 && w.s.owner.setHeld(false) {
		w.s.factsChanged()
	}
}
