package supervisor

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/crash"
)

// Lifecycle values of `state`.
const (
	LifecycleStarting   = "starting"
	LifecycleRunning    = "running"
	LifecycleRestarting = "restarting"
	LifecycleExited     = "exited" // clean exit, waiting for Enter
	LifecycleHalted     = "halted"
	LifecycleStopped    = "stopped"
)

// Session is one supervised agent: the document's plan, the current child,
// its crash history and everything `state` reports. The run loop (Run) is
// the only goroutine that starts or ends children; socket methods and keys
// ask it through channels.
type Session struct {
	opts Options
	term *terminal
	log  *slog.Logger
	size pty.Winsize // used when stdin is not a terminal

	publish func(event string, data map[string]any)

	ctrl     chan control
	keys     chan byte
	stdinEOF chan struct{}
	signals  chan os.Signal

	output    *tail
	done      chan struct{} // closed when Run returns
	startedAt time.Time

	lastInputAt atomic.Int64 // unix ms

	mu             sync.Mutex
	plan           *Plan
	tracker        *crash.Tracker
	child          *child
	lifecycle      string
	attempts       int // spawn attempts; the first uses the plan sup started with
	spawns         int // successful spawns; restart_count is spawns-1
	agentSessionID string
	exitStatus     int
}

// control is a request from a socket method to the run loop.
type control struct {
	kind  string // "restart", "resume", "stop"
	fresh bool   // restart: fresh instead of resume
	grace bool   // stop: graceful
	reply chan controlReply
}

type controlReply struct {
	pid     int
	resumed bool
	err     error
}

// NewSession prepares a session from a resolved plan. in and out are the
// pane's terminal (or pipes); size is used only when in is not a terminal.
func NewSession(plan *Plan, opts Options, in *os.File, out io.Writer, size pty.Winsize, log *slog.Logger) *Session {
	return &Session{
		opts:      opts,
		term:      newTerminal(in, out),
		log:       log,
		size:      size,
		publish:   func(string, map[string]any) {},
		ctrl:      make(chan control),
		keys:      make(chan byte, 64),
		stdinEOF:  make(chan struct{}),
		output:    newTail(64 << 10),
		done:      make(chan struct{}),
		startedAt: time.Now(),
		plan:      plan,
		tracker:   crash.NewTracker(plan.Config.Crash.Policy()),
		lifecycle: LifecycleStarting,
	}
}

// SetPublisher sets where lifecycle and resize events go (the socket).
func (s *Session) SetPublisher(p func(event string, data map[string]any)) { s.publish = p }

// SetSignals gives the run loop the channel on which sup receives SIGTERM,
// SIGHUP, SIGINT and SIGQUIT.
func (s *Session) SetSignals(c chan os.Signal) { s.signals = c }

// Plan returns the plan of the current (or last) spawn.
func (s *Session) Plan() *Plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.plan
}

func (s *Session) setLifecycle(l string) {
	s.mu.Lock()
	s.lifecycle = l
	s.mu.Unlock()
}

func (s *Session) current() *child {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.child
}

func (s *Session) event(phase string, data map[string]any) {
	if data == nil {
		data = map[string]any{}
	}
	data["phase"] = phase
	s.publish("lifecycle", data)
}

// next is what the run loop does after a child's run: spawn again (fresh or
// resuming), answering a socket request with the new pid, or end sup.
type next struct {
	done  bool
	fresh bool
	reply chan controlReply
}

// Run supervises the agent until the human quits, a stop arrives or sup is
// signalled, and returns the exit status for sup: the last child's.
func (s *Session) Run(ctx context.Context) int {
	defer close(s.done)
	defer s.term.restore()
	plan := s.Plan()
	s.log.Info("session_start", "session", plan.SessionID, "document", plan.Document, "name", plan.Name,
		"profile", plan.Profile.Name, "pane", lookupIn(s.opts.Environ)("TMUX_PANE"))
	s.log.Info("cwd_resolved", "path", plan.CWD, "source", string(plan.CWDSource))
	s.log.Info("env_resolved", "names", EnvNames(plan.Env))
	if err := s.term.makeRaw(); err != nil {
		s.log.Warn("raw_mode_failed", "err", err)
	}
	go s.readInput()
	stopResize := s.followResize()
	defer stopResize()

	n := next{}
	for !n.done {
		c, err := s.spawn(n.fresh)
		if n.reply != nil {
			r := controlReply{err: err}
			if c != nil {
				r.pid, r.resumed = c.pid, c.resumed
			}
			n.reply <- r
		}
		if err != nil {
			// A spawn failure counts as a failed run: a missing binary
			// would otherwise be retried in a tight loop.
			s.term.say("sup: " + err.Error())
			n = s.afterExit(ctx, s.exited(nil, 127, ""))
			continue
		}
		n = s.supervise(ctx, c)
	}
	return s.status()
}

func (s *Session) status() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitStatus
}

// supervise waits for the running child to exit or for a request about it.
func (s *Session) supervise(ctx context.Context, c *child) next {
	stable := s.stableTimer()
	defer stable.Stop()
	for {
		select {
		case <-c.done:
			return s.afterExit(ctx, s.exited(c, c.code, c.signal))
		case <-stable.C:
			s.mu.Lock()
			s.tracker.CheckStable(time.Now())
			s.mu.Unlock()
		case r := <-s.ctrl:
			switch r.kind {
			case "restart":
				s.log.Info("restart_requested", "fresh", r.fresh)
				s.endChild(c, true, "restart")
				return next{fresh: r.fresh, reply: r.reply}
			case "resume":
				r.reply <- controlReply{pid: c.pid}
			case "stop":
				s.stop(c, r.grace, "stop_requested")
				r.reply <- controlReply{pid: c.pid}
				return next{done: true}
			}
		case sig := <-s.signals:
			s.stop(c, true, "signal "+sig.String())
			return next{done: true}
		case <-ctx.Done():
			s.stop(c, true, "context done")
			return next{done: true}
		}
	}
}

// stableTimer fires when the running child's run counts as stable.
func (s *Session) stableTimer() *time.Timer {
	s.mu.Lock()
	at, ok := s.tracker.StableAt()
	s.mu.Unlock()
	if !ok {
		return time.NewTimer(time.Duration(1 << 62))
	}
	return time.NewTimer(time.Until(at))
}

// endChild ends c for a requested restart or stop. The exit is not a crash,
// so it does not reach the crash tracker.
func (s *Session) endChild(c *child, graceful bool, why string) {
	grace := time.Duration(0)
	if graceful {
		grace = s.Plan().Config.StopGrace
	}
	s.setLifecycle(LifecycleRestarting)
	c.terminate(grace)
	s.mu.Lock()
	s.exitStatus = c.code
	s.child = nil
	s.mu.Unlock()
	s.log.Info("child_exit", "pid", c.pid, "code", c.code, "signal", c.signal, "class", "requested", "why", why)
	s.event("exit", map[string]any{"pid": c.pid, "code": c.code, "signal": c.signal, "class": "requested"})
}

func (s *Session) stop(c *child, graceful bool, why string) {
	if c != nil {
		s.endChild(c, graceful, why)
	}
	s.setLifecycle(LifecycleStopped)
	s.log.Info("stop", "why", why)
	s.event("stopped", map[string]any{"why": why})
}
