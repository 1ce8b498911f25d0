//go:build linux

package supervisor

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/crash"
	"github.com/sup-tmux/sup/internal/tmux"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/resize"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/desk"
	"github.com/sup-tmux/sup/supervisor/plan"
	"github.com/sup-tmux/sup/supervisor/proc"
	"github.com/sup-tmux/sup/supervisor/store"
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
	opts     plan.Options
	term     *terminal
	log      *slog.Logger
	tmuxPane string
	tmuxSock string // the server part of $TMUX

	publish func(event string, data map[string]any)
	desk    *desk.Desk   // the trigger desk; owns its own lock
	audit   *store.Audit // the audit trail the desk writes
	// server is the control socket's: its noisy-input limiter (Warn) and
	// counters (metrics). Set by Start before it serves; nil in tests
	// that build a Session alone.
	server *ipc.Server

	ctrl     chan control
	keys     chan byte
	stdinEOF chan struct{}
	signals  chan os.Signal
	resizer  *resize.Follower // nil when stdin is not a terminal

	done      chan struct{} // closed when Run returns
	startedAt time.Time

	in         inputRouter
	view       atomic.Pointer[view] // the screen of the current (or last) child
	lastOutput atomic.Int64         // unix ns of the child's last output (see lastOutputAt)
	outBytes   atomic.Int64         // bytes the children wrote in all (the loop guard's line-mode progress)
	answered   atomic.Int64         // unix ns of sup's last answer into a prompt (answeredAt)

	counts counters     // hooks and activity changes, for `metrics`
	model  *modelReader // the opt-in model reader (model.go); nil: off

	hookHold time.Duration // the activity tracker's HookHold, for the look when it ends

	// prompts owns the open prompt's identity and the screen's last
	// verdict; its lock is taken after s.mu (prompt.go).
	prompts promptTracker

	notifyKick chan struct{} // a fact the notifier decides on changed (notifier.go)

	regMu sync.Mutex // one sessions.json write at a time (registry.go)
	queue *queueFile // nil: facts not published (no runtime dir, tests)

	mu             sync.Mutex
	size           pty.Winsize // the pane's, or --size when stdin is not a terminal
	plan           *plan.Plan
	tracker        *crash.Tracker
	child          *proc.Child
	spawning       bool // a child is being started: its hooks count already
	lifecycle      string
	attempts       int // spawn attempts; the first uses the plan sup started with
	spawns         int // successful spawns; restart_count is spawns-1
	agentSessionID string
	transcriptPath string
	draft          string    // unsent text in the agent's input box, from the screen
	lastPrompt     string    // the last prompt a UserPromptSubmit-like hook reported
	lastPromptAt   time.Time // when it arrived
	work           string    // the tool the agent last ran in this turn: a stall's summary
	lastForeground lineLook  // the last look at a line-mode child's foreground
	focused        *bool     // the pane's last focus report; nil: none yet
	focusedAt      time.Time
	act            *activity.Tracker
	exitStatus     int
	guard          *proc.Guard // nil unless Start made sup the family head
}

// NewSession prepares a session from a resolved plan. in and out are the
// pane's terminal (or pipes); size is used only when in is not a terminal.
func NewSession(pl *plan.Plan, opts plan.Options, in *os.File, out io.Writer, size pty.Winsize, log *slog.Logger) *Session {
	s := &Session{
		opts:       opts,
		term:       newTerminal(in, out),
		log:        log,
		tmuxPane:   plan.LookupIn(opts.Environ)("TMUX_PANE"),
		tmuxSock:   tmux.SocketOf(plan.LookupIn(opts.Environ)("TMUX")),
		size:       size,
		publish:    func(string, map[string]any) {},
		ctrl:       make(chan control),
		notifyKick: make(chan struct{}, 1),
		keys:       make(chan byte, 64),
		stdinEOF:   make(chan struct{}),
		done:       make(chan struct{}),
		startedAt:  time.Now(),
		plan:       pl,
		tracker:    crash.NewTracker(pl.Config.Crash.Policy()),
		act: activity.NewTracker(activity.Config{
			QuietWindow:  pl.Config.Activity.QuietWindow,
			HookHold:     pl.Config.Activity.HookHold,
			UnknownAfter: pl.Profile.UnknownAfter,
		}),
		hookHold:  cmp.Or(pl.Config.Activity.HookHold, activity.DefaultHookHold),
		lifecycle: LifecycleStarting,
		// --resume-id: the first spawn resumes it, like a restart would.
		agentSessionID: opts.ResumeID,
		audit:          store.NewAudit(store.StateDir(plan.LookupIn(opts.Environ)), pl.Config.Limits.Audit),
	}
	s.desk = desk.New(pl.Config.Trigger, s.audit, deskPort{s}, log)
	s.model = newModelReader(pl, opts.Environ, log, &s.counts)
	return s
}

// SetPublisher sets where lifecycle and resize events go (the socket).
func (s *Session) SetPublisher(p func(event string, data map[string]any)) { s.publish = p }

// SetSignals gives the run loop the channel on which sup receives SIGTERM,
// SIGHUP, SIGINT and SIGQUIT.
func (s *Session) SetSignals(c chan os.Signal) { s.signals = c }

// Plan returns the plan of the current (or last) spawn.
func (s *Session) Plan() *plan.Plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.plan
}

func (s *Session) setLifecycle(l string) {
	s.mu.Lock()
	s.lifecycle = l
	s.mu.Unlock()
	s.publishQueue()
	s.desk.Poke()
}

func (s *Session) current() *proc.Child {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.child
}

func (s *Session) health() crash.Health {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tracker.Health()
}

func (s *Session) event(phase string, data map[string]any) {
	if data == nil {
		data = map[string]any{}
	}
	data["phase"] = phase
	s.publish("lifecycle", data)
}

// Run supervises the agent until the human quits, a stop arrives or sup is
// signalled, and returns the exit status for sup: the last child's. An
// error means the first spawn failed: nothing ever ran.
func (s *Session) Run(ctx context.Context) (int, error) {
	defer close(s.done)
	defer s.term.restore()
	pl := s.Plan()
	s.log.Info("session_start", "session", pl.SessionID, "document", pl.Document, "name", pl.Name,
		"profile", pl.Profile.Name, "pane", s.tmuxPane)
	s.log.Info("cwd_resolved", "path", pl.CWD, "source", string(pl.CWDSource))
	s.log.Info("env_resolved", "names", plan.EnvNames(pl.Env))
	s.record()
	if err := s.term.makeRaw(); err != nil {
		s.log.Warn("raw_mode_failed", "err", err)
	}
	s.goSafe(s.readInput)
	if n, err := s.desk.Restore(pl.Document, time.Now()); err != nil {
		s.log.Error("audit_restore_failed", "err", err)
	} else if n > 0 {
		s.log.Info("trigger_ids_restored", "count", n)
	}
	defer s.audit.Close()
	s.goSafe(func() { s.desk.Run(s.done) })
	s.goSafe(func() { s.runNotify(s.done) })
	stopResize := s.followResize()
	defer stopResize()

	n := next{}
	for !n.done {
		c, err := s.spawn(n.fresh)
		if n.reply != nil {
			r := controlReply{err: err}
			if c != nil {
				r.pid, r.resumed = c.PID(), c.Resumed
			}
			n.reply <- r
		}
		if err != nil {
			if s.spawnsSoFar() == 0 && s.attemptsSoFar() == 1 {
				return 1, err // at first start, a hard error: nothing ran
			}
			// Later, it counts as a failed run: a binary that vanished
			// must back off and halt, not spin.
			s.term.say("sup: " + err.Error())
			n = s.afterExit(ctx, s.recordExit(nil, exitCrash))
			continue
		}
		n = s.supervise(ctx, c)
	}
	return s.status(), nil
}

func (s *Session) status() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitStatus
}

func (s *Session) spawnsSoFar() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spawns
}

func (s *Session) attemptsSoFar() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// goSafe runs fn in a goroutine whose panic restores the terminal before
// the process dies: a crash must not leave the pane in raw mode.
func (s *Session) goSafe(fn func()) {
	go func() {
		defer func() {
			if r := recover(); r != nil {
				s.term.restore()
				s.log.Error("panic", "panic", r)
				panic(r)
			}
		}()
		fn()
	}()
}
