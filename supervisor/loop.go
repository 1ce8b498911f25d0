//go:build linux

package supervisor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sup-tmux/sup/crash"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// controlKind names what a socket method asks of the run loop.
type controlKind string

const (
	ctrlRestart controlKind = "restart"
	ctrlResume  controlKind = "resume"
	ctrlStop    controlKind = "stop"
)

// control is a request from a socket method to the run loop.
type control struct {
	kind  controlKind
	fresh bool // restart: fresh instead of resume
	grace bool // stop: graceful
	reply chan controlReply
}

type controlReply struct {
	pid     int
	resumed bool
	endedBy string // stop: the signal that ended the child ("" when none ran)
	running bool   // resume: the child was running already; nothing changed
	err     error
}

// next is what the run loop does after a child's run: spawn again (fresh or
// resuming), answering a socket request with the new pid, or end sup.
type next struct {
	done  bool
	fresh bool
	reply chan controlReply
}

// exitKind says why a child ended: a crash or clean exit goes to the crash
// tracker; an exit sup caused (restart, stop) does not.
type exitKind int

const (
	exitCrash exitKind = iota
	exitRequested
)

// supervise waits for the running child to exit or for a request about it.
func (s *Session) supervise(ctx context.Context, c *proc.Child) next {
	stable := s.stableTimer()
	defer stable.Stop()
	for {
		select {
		case <-c.Done():
			return s.afterExit(ctx, s.recordExit(c, exitCrash))
		case <-stable.C:
			s.runChanged(s.owner.change(func() {
				s.owner.run.tracker.CheckStable(time.Now())
				s.owner.agent.crashOver() // a stable run ends the crash loop
			}))
		case r := <-s.ctrl:
			if n, handled := s.control(r, c); handled {
				return n
			}
		case sig := <-s.signals:
			return s.stop(c, true, "signal "+sig.String())
		case <-ctx.Done():
			return s.stop(c, true, "context done")
		}
	}
}

// control applies a socket request. c is the running child, or nil between
// runs. It reports whether the request ends the current wait.
func (s *Session) control(r control, c *proc.Child) (next, bool) {
	switch r.kind {
	case ctrlRestart:
		s.log.Info("restart_requested", "fresh", r.fresh)
		if c != nil {
			s.endChild(c, true, LifecycleRestarting, "restart")
		}
		return next{fresh: r.fresh, reply: r.reply}, true
	case ctrlResume:
		if s.facts().health == crash.Halted || c == nil {
			s.resume()
		}
		if c == nil {
			return next{reply: r.reply}, true
		}
		r.reply <- controlReply{pid: c.PID(), resumed: c.Resumed, running: true}
		return next{}, false
	case ctrlStop:
		n, by := s.stopChild(c, r.grace, "stop_requested")
		r.reply <- controlReply{endedBy: by}
		return n, true
	}
	return next{}, false
}

// stableTimer fires when the running child's run counts as stable.
func (s *Session) stableTimer() *time.Timer {
	f := s.facts()
	at, ok := f.stableAt, f.stableOK
	if !ok {
		return time.NewTimer(time.Duration(1 << 62))
	}
	return time.NewTimer(time.Until(at))
}

// recordExit books a child's end (c is nil when the spawn itself failed,
// booked as exit code 127, the shell's "command not found"):
// status, history, log, event. Crashes and clean exits go to the crash
// tracker for a decision; requested exits do not.
func (s *Session) recordExit(c *proc.Child, kind exitKind) crash.Decision {
	code, signal := 127, ""
	if c != nil {
		code, signal = c.Exit()
	}
	var d crash.Decision
	class := "requested"
	before, n := s.owner.change(func() {
		r := &s.owner.run
		if kind == exitCrash {
			d = r.tracker.Exited(code, signal, time.Now())
			class = string(d.Exit.Class)
		}
		r.exitStatus = code
		r.child = nil
		if r.lifecycle == LifecycleRunning {
			// No agent runs from this version on: the lifecycle the
			// decision leads to (afterExit), in the same snapshot.
			r.lifecycle = afterLifecycle(d.Action)
		}
	})
	s.runChanged(before, n)
	health := string(n.run.health)
	s.in.detach()
	pid := 0
	if c != nil {
		pid = c.PID()
		s.guard.End(pid)
	}
	s.log.Info("child_exit", "pid", pid, "code", code, "signal", signal, "class", class, "health", health,
		"consecutive_failures", d.ConsecutiveFailures)
	s.event(ipc.LifecycleExit{Phase: ipc.PhaseExit, PID: pid, Code: code, Signal: signal, Class: class, Health: health})
	s.term.resetModes()
	return d
}

// endChild ends c for a requested restart or stop and returns the signal
// that ended it.
func (s *Session) endChild(c *proc.Child, graceful bool, lifecycle, why string) string {
	grace := time.Duration(0)
	if graceful {
		grace = s.Plan().Config.StopGrace
	}
	s.setLifecycle(lifecycle)
	by := c.Terminate(grace)
	s.recordExit(c, exitRequested)
	s.log.Info("child_ended", "why", why, "ended_by", by)
	return by
}

// stop ends the child (if any) and then sup.
func (s *Session) stop(c *proc.Child, graceful bool, why string) next {
	n, _ := s.stopChild(c, graceful, why)
	return n
}

// stopChild is stop, also saying which signal ended the child ("" when
// none ran).
func (s *Session) stopChild(c *proc.Child, graceful bool, why string) (next, string) {
	by := ""
	if c != nil {
		by = s.endChild(c, graceful, LifecycleStopped, why)
	}
	s.setLifecycle(LifecycleStopped)
	s.log.Info("stop", "why", why)
	s.event(ipc.LifecycleStopped{Phase: ipc.PhaseStopped, Why: why, EndedBy: by})
	return next{done: true}, by
}

// afterExit applies the crash decision: wait for the human after a clean
// exit, count down to a restart after a failure, or sit halted.
func (s *Session) afterExit(ctx context.Context, d crash.Decision) next {
	switch d.Action {
	case crash.ActionPrompt:
		// A clean exit ends a crash episode: it has its own wait, below.
		s.endRun(LifecycleExited, func(a *agentFacts) { a.crashOver() }, "exited", activity.Ready, "exited", true)
		s.term.say(fmt.Sprintf("agent exited (%d) — Enter to restart, q to quit", d.Exit.Code))
		if !s.term.inTTY && closed(s.stdinEOF) {
			// Nobody can press Enter: scripts get the child's status.
			return s.stop(nil, false, "input ended")
		}
		return s.wait(ctx, waitSpec{restartKeys: "\r\n", quitOnEOF: !s.term.inTTY})
	case crash.ActionRestart:
		summary := s.crashSummary(d)
		s.endRun(LifecycleRestarting, func(a *agentFacts) { a.crashed(d.Exit.At, "restarting", summary) }, "crashed", activity.Error, "restarting", false)
		s.log.Info("restart_scheduled", "delay", d.Delay.String(), "class", string(d.Exit.Class))
		s.event(ipc.LifecycleRestartScheduled{Phase: ipc.PhaseRestartScheduled, DelayMS: d.Delay.Milliseconds(), Class: string(d.Exit.Class)})
		return s.countdown(ctx, d)
	default:
		summary := s.crashSummary(d)
		s.endRun(LifecycleHalted, func(a *agentFacts) { a.crashed(d.Exit.At, "halted", summary) }, "halted", activity.Error, "halted", true)
		s.log.Warn("halted", "consecutive_failures", d.ConsecutiveFailures)
		s.event(ipc.LifecycleHalted{Phase: ipc.PhaseHalted, ConsecutiveFailures: d.ConsecutiveFailures})
		s.term.say(fmt.Sprintf("halted after %d failures — r to retry, q to quit", d.ConsecutiveFailures))
		return s.wait(ctx, waitSpec{restartKeys: "rR", resumes: true})
	}
}

// countdown shows a one-line countdown, then restarts. Enter restarts at
// once, q quits.
func (s *Session) countdown(ctx context.Context, d crash.Decision) next {
	deadline := time.Now().Add(d.Delay)
	what := exitInfo(d.Exit.Code, d.Exit.Signal, string(d.Exit.Class), d.Exit.At).Describe()
	line := func(first bool) {
		left := max(time.Until(deadline).Round(time.Second), 0)
		s.term.status(fmt.Sprintf("agent exited (%s, %s) — restarting in %s (Enter: now, q: quit)", what, d.Exit.Class, left), first)
	}
	line(true)
	timer := time.NewTimer(d.Delay)
	defer timer.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	n := s.wait(ctx, waitSpec{timeout: timer.C, tick: tick.C, onTick: func() { line(false) }, restartKeys: "\r\n"})
	s.term.status("", false)
	return n
}

// waitSpec says what ends a wait between runs besides socket requests,
// signals and q.
type waitSpec struct {
	timeout     <-chan time.Time // restart when it fires
	tick        <-chan time.Time // call onTick (a countdown line)
	onTick      func()
	restartKeys string // keys that spawn again
	resumes     bool   // a restart key also clears a halt
	quitOnEOF   bool   // the end of piped input ends sup
}

// wait blocks until the human or a socket request decides what comes next.
// Only keys typed after the prompt appeared count.
func (s *Session) wait(ctx context.Context, w waitSpec) next {
	s.in.prompt(s.keys)
	defer s.in.unprompt()
	eof := s.stdinEOF
	if s.term.inTTY {
		eof = nil // a terminal's EOF is a key (Ctrl-D), not the end of input
	}
	for {
		select {
		case <-w.timeout:
			return next{}
		case <-w.tick:
			w.onTick()
		case k := <-s.keys:
			switch {
			case k == 'q' || k == 'Q' || k == 0x03:
				return s.stop(nil, false, "quit by key")
			case strings.IndexByte(w.restartKeys, k) >= 0:
				if w.resumes {
					s.resume()
				}
				return next{}
			}
		case <-eof:
			if w.quitOnEOF {
				return s.stop(nil, false, "input ended")
			}
			eof = nil // halted: only the socket can resume now; see specs/supervisor.md
		case r := <-s.ctrl:
			if n, handled := s.control(r, nil); handled {
				return n
			}
		case sig := <-s.signals:
			return s.stop(nil, false, "signal "+sig.String())
		case <-ctx.Done():
			return s.stop(nil, false, "context done")
		}
	}
}

// afterLifecycle is the lifecycle a crash decision's action leads to.
func afterLifecycle(a crash.Action) string {
	switch a {
	case crash.ActionPrompt:
		return LifecycleExited
	case crash.ActionRestart:
		return LifecycleRestarting
	}
	return LifecycleHalted
}

// endRun applies what a child's end leads to in one change of the facts:
// the crash episode (episode), the lifecycle l and the lifecycle's signal
// to the tracker (lifecycleSignal), so that no snapshot has the new
// lifecycle with the old episode or activity.
func (s *Session) endRun(l string, episode func(*agentFacts), rule string, a activity.Activity, reason string, stuck bool) {
	sig := lifecycleSig(rule, a, reason, stuck)
	changed := false
	s.runChanged(s.owner.change(func() {
		episode(&s.owner.agent)
		s.owner.run.lifecycle = l
		changed = s.owner.agent.act.Observe(sig)
	}))
	s.observed(sig, changed)
	s.publishQueue()
	s.desk.Poke()
}

// crashSummary is the queue's summary of the failed exit d.
func (s *Session) crashSummary(d crash.Decision) string {
	how := d.Exit.Signal
	if how == "" {
		how = fmt.Sprintf("exit %d", d.Exit.Code)
	}
	how += " (" + string(d.Exit.Class) + ")"
	if d.Action == crash.ActionHalt {
		how += fmt.Sprintf(", %d in a row", d.ConsecutiveFailures)
	}
	snap, _ := s.display.synced()
	return crashSummary(how, snap.Lines, snap.Cols)
}

// resume clears a halt (and any clean-exit wait).
func (s *Session) resume() {
	s.runChanged(s.owner.change(func() {
		s.owner.agent.crashOver() // the human acted: a new crash is a new episode
		s.owner.run.tracker.Resume(time.Now())
	}))
	s.log.Info("resumed")
	s.event(ipc.LifecycleResumed{Phase: ipc.PhaseResumed})
}

// closed reports whether ch is closed (a done channel).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func exitInfo(code int, signal, class string, at time.Time) *ipc.ExitInfo {
	return &ipc.ExitInfo{Code: code, Signal: signal, Class: class, At: at.UnixMilli()}
}
