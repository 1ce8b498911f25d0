package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/sup-tmux/sup/crash"
)

// exited records a child's exit (c is nil when the spawn itself failed) with
// the crash tracker and reports it.
func (s *Session) exited(c *child, code int, signal string) crash.Decision {
	now := time.Now()
	s.mu.Lock()
	d := s.tracker.Exited(code, signal, now)
	s.exitStatus = code
	s.child = nil
	s.mu.Unlock()
	pid := 0
	if c != nil {
		pid = c.pid
	}
	s.log.Info("child_exit", "pid", pid, "code", code, "signal", signal, "class", string(d.Exit.Class),
		"health", string(d.Health), "consecutive_failures", d.ConsecutiveFailures)
	s.event("exit", map[string]any{"pid": pid, "code": code, "signal": signal, "class": string(d.Exit.Class), "health": string(d.Health)})
	s.term.resetModes()
	return d
}

// afterExit applies the crash decision: wait for the human after a clean
// exit, count down to a restart after a failure, or sit halted.
func (s *Session) afterExit(ctx context.Context, d crash.Decision) next {
	switch d.Action {
	case crash.ActionPrompt:
		s.setLifecycle(LifecycleExited)
		s.term.say(fmt.Sprintf("agent exited (%d) — Enter to restart, q to quit", d.Exit.Code))
		if !s.term.inTTY && s.inputEnded() {
			// Nobody can press Enter: scripts get the child's status.
			return next{done: true}
		}
		return s.wait(ctx, waitSpec{restartKeys: "\r\n", quitOnEOF: !s.term.inTTY})
	case crash.ActionRestart:
		s.setLifecycle(LifecycleRestarting)
		s.log.Info("restart_scheduled", "delay", d.Delay.String(), "class", string(d.Exit.Class))
		s.event("restart_scheduled", map[string]any{"delay_ms": d.Delay.Milliseconds(), "class": string(d.Exit.Class)})
		return s.countdown(ctx, d)
	default:
		s.setLifecycle(LifecycleHalted)
		s.log.Warn("halted", "consecutive_failures", d.ConsecutiveFailures)
		s.event("halted", map[string]any{"consecutive_failures": d.ConsecutiveFailures})
		s.term.say(fmt.Sprintf("halted after %d failures — r to retry, q to quit", d.ConsecutiveFailures))
		return s.wait(ctx, waitSpec{restartKeys: "rR", resumes: true})
	}
}

// countdown shows a one-line countdown, then restarts. Enter restarts at
// once, q quits.
func (s *Session) countdown(ctx context.Context, d crash.Decision) next {
	deadline := time.Now().Add(d.Delay)
	line := func(first bool) {
		left := time.Until(deadline).Round(time.Second)
		s.term.status(fmt.Sprintf("agent exited (%s, %s) — restarting in %s (Enter: now, q: quit)",
			describeExit(d.Exit), d.Exit.Class, max(left, 0)), first)
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
func (s *Session) wait(ctx context.Context, w waitSpec) next {
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
				s.stop(nil, false, "quit by key")
				return next{done: true}
			case containsByte(w.restartKeys, k):
				if w.resumes {
					s.resume()
				}
				return next{}
			}
		case <-eof:
			if w.quitOnEOF {
				s.stop(nil, false, "input ended")
				return next{done: true}
			}
			eof = nil // halted: only the socket can resume now; see specs/supervisor.md
		case r := <-s.ctrl:
			switch r.kind {
			case "restart":
				return next{fresh: r.fresh, reply: r.reply}
			case "resume":
				s.resume()
				return next{reply: r.reply}
			case "stop":
				s.stop(nil, r.grace, "stop_requested")
				r.reply <- controlReply{}
				return next{done: true}
			}
		case sig := <-s.signals:
			s.stop(nil, false, "signal "+sig.String())
			return next{done: true}
		case <-ctx.Done():
			s.stop(nil, false, "context done")
			return next{done: true}
		}
	}
}

// resume clears a halt (and any clean-exit wait).
func (s *Session) resume() {
	s.mu.Lock()
	s.tracker.Resume(time.Now())
	s.mu.Unlock()
	s.log.Info("resumed")
	s.event("resumed", nil)
}

func (s *Session) inputEnded() bool {
	select {
	case <-s.stdinEOF:
		return true
	default:
		return false
	}
}

func describeExit(e crash.Exit) string {
	if e.Signal != "" {
		return e.Signal
	}
	return fmt.Sprintf("code %d", e.Code)
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}
