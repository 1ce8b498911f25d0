//go:build linux

package supervisor

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/crash"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/internal/tmux"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/resize"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/desk"
	"github.com/sup-tmux/sup/supervisor/proc"
	"github.com/sup-tmux/sup/supervisor/trigger"
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

	publish func(event string, data any)
	desk    *desk.Desk   // the trigger desk; owns its own lock
	changes *changes     // the state owner's change signal the desk's waits watch (changed.go)
	audit   *store.Audit // the audit trail the desk writes

	ctrl     chan control
	keys     chan byte
	stdinEOF chan struct{}
	signals  chan os.Signal
	resizer  *resize.Follower // nil when stdin is not a terminal

	done      chan struct{} // closed when Run returns
	startedAt time.Time

	in      inputRouter
	display display // the current child's screen and the output clock (view.go)

	counts counters     // hooks and activity changes, for `metrics`
	model  *modelReader // the opt-in model reader (model.go); nil: off

	hookHold time.Duration // the activity tracker's HookHold, for the look when it ends

	// owner owns the session's facts — the run loop's, the agent's
	// activity and the open prompt's identity — and publishes them as one
	// snapshot (state.go). agent and prompts are its handles for the
	// agent's facts (agentfacts.go) and the prompt tracker (prompt.go).
	owner   *stateOwner
	agent   agentHandle
	prompts promptHandle

	notifier *notifier // tells the human when the session waits (notifier.go)

	regMu  sync.Mutex // one sessions.json write at a time (registry.go)
	queue  *queueFile // nil: facts not published (no runtime dir, tests)
	states *stateFile // likewise, the state file (statefile.go)

	guard *proc.Guard // nil unless Start made sup the family head; set before Run

	// eventMu is held around the load, the compare and the send of one
	// `activity` event (sendActivity), so events go out in version order;
	// under it only the log's and the socket server's own locks are taken
	// (Publish does not block). lastEvent is the snapshot version the last
	// event was made from: an event is sent only for a newer one.
	eventMu   sync.Mutex
	lastEvent uint64
}

// NewSession prepares a session from a resolved plan. in and out are the
// pane's terminal (or pipes); size is used only when in is not a terminal.
func NewSession(pl *plan.Plan, opts plan.Options, in *os.File, out io.Writer, size pty.Winsize, log *slog.Logger) *Session {
	s := &Session{
		opts:      opts,
		term:      newTerminal(in, out),
		log:       log,
		tmuxPane:  plan.LookupIn(opts.Environ)("TMUX_PANE"),
		tmuxSock:  tmux.SocketOf(plan.LookupIn(opts.Environ)("TMUX")),
		publish:   func(string, any) {},
		ctrl:      make(chan control),
		keys:      make(chan byte, 64),
		stdinEOF:  make(chan struct{}),
		done:      make(chan struct{}),
		startedAt: time.Now(),
		hookHold:  cmp.Or(pl.Config.Activity.HookHold, activity.DefaultHookHold),
		owner:     newStateOwner(pl, size, opts.ResumeID),
		audit:     store.NewAudit(paths.StateDir(plan.LookupIn(opts.Environ)), pl.Config.Limits.Audit),
	}
	s.agent, s.prompts = agentHandle{s.owner}, promptHandle{s.owner}
	s.changes = &s.owner.changes
	s.desk = desk.New(trigger.Config(pl.Config.Trigger), s.audit, deskPort{s}, log)
	s.model = newModelReader(pl, opts.Environ, log, &s.counts)
	s.notifier = newNotifier(s)
	return s
}

// supPID is this process's pid: os.Getpid is a system call each time, and
// State (which the state file reads at every change, an idle look's
// included) would make one, waking the Go runtime's sysmon (see
// foreground's raw_linux.go).
var supPID = os.Getpid()

// SetPublisher sets where lifecycle and resize events go (the socket).
func (s *Session) SetPublisher(p func(event string, data any)) { s.publish = p }

// Plan returns the plan of the current (or last) spawn.
func (s *Session) Plan() *plan.Plan { return s.owner.load().run.plan }

// setLifecycle changes the lifecycle (the run loop's).
func (s *Session) setLifecycle(l string) {
	s.runChanged(s.owner.change(func() { s.owner.run.lifecycle = l }))
	s.publishQueue()
}

// runChanged follows a change of the run loop's facts: a lifecycle without
// an agent presents the activity otherwise (betweenRuns), which the
// `activity` event says.
func (s *Session) runChanged(before, after *snapshot) {
	if after.presents(before) {
		s.activityChanged()
	}
}

func (s *Session) current() *proc.Child { return s.owner.load().run.child }

// runFacts is the run loop's facts in one snapshot.
type runFacts struct {
	plan           *plan.Plan
	child          *proc.Child // nil between runs
	spawning       bool
	lifecycle      string
	agentSessionID string
	attempts       int
	spawns         int
	exitStatus     int
	size           pty.Winsize // the pane's (kept current by the resize follower), or --size
	health         crash.Health
	lastExit       *ipc.ExitInfo // nil: none yet
	stableAt       time.Time     // when the running child's run counts as stable
	stableOK       bool          // stableAt applies (a child runs, not yet stable)
}

// facts reads the run loop's facts.
func (s *Session) facts() runFacts { return s.owner.load().run }

// history is what the `history` method returns: the crash tracker's
// exits and health.
func (s *Session) history() ipc.HistoryResult {
	n := s.owner.load()
	return ipc.HistoryResult{Exits: append([]ipc.ExitInfo{}, n.exits...), Health: string(n.run.health)}
}

// hookConversation checks a hook against the running agent's
// conversation: SessionStart names the conversation the running agent has
// (startup, resume, /clear), as does the first hook with an id; a hook
// for another conversation is stale or foreign. It returns the
// conversation's id and, when the hook does not apply, why.
func (s *Session) hookConversation(p ipc.HookParams) (current, why string) {
	if p.SessionID != "" {
		// Hook data is data: an id not of the agent's format is neither
		// stored nor compared (specs/security.md, "Hook data is data").
		if err := s.Plan().Profile.CheckAgentSessionID(p.SessionID); err != nil {
			s.log.Warn("agent_session_id_refused", "event", p.Event, "err", err)
			p.SessionID = ""
		}
	}
	renamed := false
	s.owner.update(func() bool {
		r := &s.owner.run
		current = r.agentSessionID
		switch {
		case r.child == nil && !r.spawning:
			why = "no agent is running"
		case p.SessionID != "" && (p.Event == "SessionStart" || current == ""):
			renamed = p.SessionID != current
			r.agentSessionID, current = p.SessionID, p.SessionID
		case p.SessionID != "" && p.SessionID != current:
			why = "session id " + p.SessionID + " is not the running agent's (" + current + ")"
		}
		return renamed
	})
	if renamed {
		s.record() // after the snapshot that holds the new id
	}
	return current, why
}

// event publishes a lifecycle event: data is one of ipc's Lifecycle* types.
func (s *Session) event(data ipc.EventData) { s.publish(ipc.EventLifecycle, data) }

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
	s.goSafe(func() { readPane(s) })
	if n, err := s.desk.Restore(pl.Document, time.Now()); err != nil {
		s.log.Error("audit_restore_failed", "err", err)
	} else if n > 0 {
		s.log.Info("trigger_ids_restored", "count", n)
	}
	defer s.audit.Close()
	s.goSafe(func() { s.desk.Run(s.done) })
	s.goSafe(func() { s.notifier.run(pl.Config.Notify, s.done) })
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
			if f := s.facts(); f.spawns == 0 && f.attempts == 1 {
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
	return s.facts().exitStatus, nil
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
