//go:build linux

package supervisor

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// Version is sup's version, reported by hello.
var Version = "0.1.0-dev"

// StartIO is the terminal side of `sup start`.
type StartIO struct {
	In       *os.File
	Out, Err io.Writer
	Size     pty.Winsize // when In is not a terminal
	PrintEnv bool        // print the resolved plan and return without starting
	// Duplicate starts even when another supervisor runs for the same
	// document (--duplicate); otherwise that start is a *DuplicateError.
	Duplicate bool
}

// Start is `sup start`: resolve the plan, open the session log and the
// control socket, and supervise the agent until it is over. It returns sup's
// exit status; an error means the session never started.
func Start(ctx context.Context, o plan.Options, tio StartIO) (int, error) {
	getenv := plan.LookupIn(o.Environ)
	if o.SessionID == "" {
		o.SessionID = plan.NewSessionID()
	}
	runtimeDir := paths.RuntimeDir(getenv)
	sock, err := paths.Socket(runtimeDir, o.SessionID)
	if err != nil {
		return 1, err
	}
	o.SocketPath = sock
	pl, err := plan.Resolve(o)
	if err != nil {
		return 1, err
	}
	if _, err := CompilePack(pl.Profile.Classify); err != nil {
		return 1, err
	}
	if tio.PrintEnv {
		if err := PrintEnv(tio.Out, pl); err != nil {
			return 1, err
		}
		return 0, nil
	}
	if _, _, err := pl.Argv(""); err != nil {
		return 1, err
	}
	if o.ResumeID != "" && len(pl.Profile.ResumeArgs) == 0 {
		return 1, fmt.Errorf("--resume-id %s: profile %s cannot resume a conversation (it has no resume_args)", o.ResumeID, pl.Profile.Name)
	}
	if o.ResumeID != "" {
		if err := pl.Profile.CheckAgentSessionID(o.ResumeID); err != nil {
			return 1, fmt.Errorf("--resume-id: %w", err)
		}
	}

	// What Start sets up comes down in reverse order, on every return.
	var td teardown
	defer td.Close()
	stateDir := paths.StateDir(getenv)
	log, closeLog, err := openLog(stateDir, pl.SessionID, pl.Config.Limits.Log)
	if err != nil {
		return 1, err
	}
	td.Add(closeLog)

	if err := ipc.EnsureRuntimeDir(runtimeDir); err != nil {
		return 1, fmt.Errorf("runtime dir: %w", err)
	}
	if !tio.Duplicate {
		release, err := claimDocument(runtimeDir, DocHolder{SessionID: pl.SessionID, Name: pl.Name,
			Document: pl.Document, SupPID: os.Getpid(), TmuxPane: getenv("TMUX_PANE")})
		if err != nil {
			return 1, err
		}
		td.Add(release)
	}
	ln, err := ipc.Listen(sock)
	if err != nil {
		return 1, fmt.Errorf("control socket: %w", err)
	}
	sess := NewSession(pl, o, tio.In, tio.Out, tio.Size, log)
	// Nothing the agent starts may outlive the session: sup becomes a
	// subreaper and gets a guard (specs/reliability.md).
	if err := proc.BecomeFamilyHead(); err != nil {
		log.Warn("subreaper_failed", "err", err)
	} else if g, err := proc.StartGuard(pl.SessionID, log); err != nil {
		log.Warn("guard_failed", "err", err)
	} else {
		sess.guard = g
		td.Add(g.Close)
	}
	srv := ipc.NewServer(ipc.ServerConfig{
		Version:  Version,
		Events:   Events,
		Logger:   log,
		MaxFrame: pl.Config.Socket.MaxFrameBytes,
		MaxConns: pl.Config.Socket.MaxClients,
		Classify: classifier(pl, runtimeDir),
		OnClient: func(ev ipc.ClientEvent) { sess.publish(ipc.EventClient, ev) },
	})
	for name, h := range newAPI(sess, srv).methods() {
		srv.Handle(name, h)
	}
	// The state file (statefile.go) is written before every event but a
	// client's connect or disconnect goes out: a client that saw a change
	// and lists reads it; a listing's connection writes nothing.
	sf := newStateFile(paths.StateFile(runtimeDir, pl.SessionID), sess.State,
		func() time.Duration { return sess.owner.load().quiet }, sess.changes, log)
	sess.SetPublisher(func(event string, data any) {
		if event != ipc.EventClient {
			sf.publish()
		}
		srv.Publish(event, data)
	})
	go srv.Serve(ln) // Serve returns when srv.Shutdown is called below.
	// The socket goes on every exit path that runs deferred code; a SIGKILL
	// leaves it for the stale-socket rule. The grace lets a `stop` caller
	// read its answer.
	td.Add(func() { srv.Shutdown(time.Second) }) // Best effort: sup is exiting.
	// Added after the Shutdown, so it runs first: closing the listener
	// unlinks the socket, which the watch must not take for a deletion.
	// The runtime dir came back: the queue file is rewritten.
	republish := func() { sess.queue.republish(); sf.republish() }
	if stop, err := watchSocket(runtimeDir, sock, srv, ln, log, republish); err != nil {
		log.Warn("socket_watch_failed", "err", err)
	} else {
		td.Add(stop)
	}
	go func() {
		removed, err := ipc.SweepStale(runtimeDir)
		for _, p := range removed {
			log.Info("stale_socket_removed", "path", p)
		}
		if err != nil {
			log.Warn("stale_socket_sweep", "err", err)
		}
		pruneLogs(stateDir, runtimeDir, pl.Config.Limits.Log, log)
	}()

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT)
	td.Add(func() { signal.Stop(sigs) })
	// Notify, not Ignore: a write to a closed stdout pipe must return EPIPE
	// instead of killing sup (Go's default for fd 1), and an ignored SIGPIPE
	// would be inherited by the agent through exec.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	td.Add(func() { signal.Stop(pipes) })
	sess.signals = sigs
	log.Info("socket_listening", "path", sock)
	// Added last, so it runs first: the facts go before the socket.
	sess.queue = &queueFile{path: paths.QueueFile(runtimeDir, pl.SessionID), facts: sess.queueFacts, log: log}
	sess.queue.publish()
	td.Add(sess.queue.remove) // for good: later changes do not bring it back
	sess.states = sf
	sf.start()
	td.Add(sf.remove)
	return sess.Run(ctx)
}

// openLog opens the session log: one file per session, 0600, since even
// names and paths of a user's projects are nobody else's business; capped
// at c.MaxSize and rotated once (store.LogWriter).
func openLog(stateDir, sessionID string, c store.LogConfig) (*slog.Logger, func(), error) {
	w, err := store.OpenSessionLog(stateDir, sessionID, c)
	if err != nil {
		return nil, nil, err
	}
	return slog.New(slog.NewTextHandler(w, nil)), func() { w.Close() }, nil // Best effort: sup is exiting.
}

// pruneLogs removes the ended sessions' logs past the limits (specs/
// supervisor.md, "Limits on disk"); run in the background by every start,
// since no daemon does it.
func pruneLogs(stateDir, runtimeDir string, c store.LogConfig, log *slog.Logger) {
	removed, err := store.PruneLogs(stateDir, c, time.Now(), func(id string) bool { return ipc.SessionLive(runtimeDir, id) })
	for _, r := range removed {
		log.Info("log_pruned", "path", r.Path, "bytes", r.Bytes, "why", r.Why)
	}
	if err != nil {
		log.Warn("log_prune_failed", "err", err)
	}
}

// PrintEnv writes what --print-env shows: the resolved cwd with its source,
// the command, and every variable of the child's environment with its
// source, secrets masked.
func PrintEnv(w io.Writer, p *plan.Plan) error {
	argv, _, err := p.Argv("")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "session %s\n", p.SessionID)
	fmt.Fprintf(w, "document %s\n", p.Document)
	fmt.Fprintf(w, "cwd %s (source: %s)\n", p.CWD, p.CWDSource)
	fmt.Fprintf(w, "profile %s (%s)\n", p.Profile.Name, p.Profile.Source)
	fmt.Fprintf(w, "command %q\n", argv)
	for _, v := range p.Env {
		fmt.Fprintf(w, "env %s=%s (source: %s)\n", v.Name, plan.MaskedValue(v), v.Source)
	}
	return nil
}
