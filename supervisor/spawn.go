//go:build linux

package supervisor

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"syscall"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/resize"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// spawn starts the child from the plan `sup start` resolved. The plan is
// never resolved again: what identifies the session and what it runs (name,
// workspace, role, profile, command, cwd, env) are fixed for the
// supervisor's life, since the document they came from is one the agent can
// write (specs/security.md, "Fixed at start"). Only the agent session id a
// resume uses changes between spawns.
func (s *Session) spawn(fresh bool) (*proc.Child, error) {
	n := s.owner.update(func() bool { s.owner.run.attempts++; return true })
	first, pl, agentID := n.run.attempts == 1, n.run.plan, n.run.agentSessionID
	if !first {
		s.noteFrontmatterChange(pl)
	}
	pack, err := CompilePack(pl.Profile.Classify)
	if err != nil {
		s.log.Error("resolve_failed", "err", err)
		return nil, fmt.Errorf("spawn: %w", err)
	}
	status, err := activity.CompileStatus(pl.Profile.StatusLines)
	if err != nil {
		s.log.Error("resolve_failed", "err", err)
		return nil, fmt.Errorf("spawn: profile %s: %w", pl.Profile.Name, err)
	}
	if fresh {
		agentID = ""
	}
	argv, resumed, err := pl.Argv(agentID)
	if err != nil {
		s.log.Error("spawn_failed", "err", err)
		return nil, fmt.Errorf("spawn: %w", err)
	}
	size := s.facts().size
	// The agent may send a hook the moment it runs, before StartChild has
	// even returned: from here its hooks count (Session.hook), and the
	// spawn's own signal goes first so that it never overwrites one.
	sig := lifecycleSig("spawn", activity.Unknown, "", false)
	changed := false
	s.owner.update(func() bool {
		s.owner.run.spawning = true
		changed = s.owner.agent.act.Observe(sig)
		return true
	})
	s.observed(sig, changed)
	c, err := proc.StartChild(argv, pl.CWD, plan.Environ(pl.Env), &size)
	if err != nil {
		s.owner.update(func() bool { s.owner.run.spawning = false; return true })
		s.log.Error("spawn_failed", "argv0", argv[0], "err", err)
		return nil, fmt.Errorf("spawn %s: %w", argv[0], err)
	}
	c.Resumed = resumed
	v := newView(int(size.Cols), int(size.Rows), pack == nil || !pack.HasRules() || pack.OnlyPrompts())
	if !s.term.inTTY {
		v.replies = newReplies(v.model)
	}
	s.display.show(v)
	w := &watcher{s: s, c: c, v: v, pack: pack, loginShell: interactiveShell(argv)}
	// Keys and sup's replies reach the child from before its first byte is
	// read: a headless child's first query (DA1 at start) was answered into
	// a router not yet attached, and the reply dropped as meant for no
	// child, when the steps below took long on a loaded machine
	// (TestE2EHeadlessQueriesAnswered in a whole run).
	s.in.attach(c.Master())
	s.goSafe(func() { c.Pump(s.term.out, w.tap()) })
	s.goSafe(c.Wait)

	s.guard.Run(c.PID())
	s.runChanged(s.owner.change(func() {
		r := &s.owner.run
		r.child, r.spawning = c, false
		r.spawns++
		r.tracker.Started(c.StartedAt())
		r.lifecycle = LifecycleRunning
		s.owner.agent.crashRespawned()
	}))
	s.publishQueue()
	if s.resizer != nil {
		// A resize between reading the size and registering c went to nobody.
		s.resizer.Sync() // Best effort: the size was set at start.
	}
	mode := "fresh"
	if resumed {
		mode = "resume"
	}
	s.log.Info("pty_allocated", "rows", size.Rows, "cols", size.Cols)
	s.log.Info("child_spawn", "pid", c.PID(), "mode", mode, "argv0", argv[0])
	s.event(ipc.LifecycleSpawn{Phase: ipc.PhaseSpawn, PID: c.PID(), Mode: mode})
	s.goSafe(func() { w.screen(pl.Config.Activity.ReadyDebounce, pl.Profile.BusyWindow) })
	s.goSafe(func() { w.stall(status, pl.Profile.StallThreshold()) })
	return c, nil
}

// noteFrontmatterChange logs, at a respawn, that the document's frontmatter
// no longer says what the session was started with. The started plan is
// kept: a user who wants the new settings stops and starts the session.
// The document is the agent's to write, so it is read as hostile: only a
// regular file, opened without blocking (a FIFO swapped in must not hang
// the respawn), and only its first maxFrontmatterRead bytes.
func (s *Session) noteFrontmatterChange(pl *plan.Plan) {
	fm, err := readFrontmatterBounded(pl.Document)
	if err != nil {
		s.log.Warn("frontmatter_unreadable", "document", pl.Document, "err", err,
			"kept", "the plan sup start resolved")
		return
	}
	if reflect.DeepEqual(fm, pl.Frontmatter) {
		return
	}
	s.log.Warn("frontmatter_changed", "document", pl.Document,
		"kept", "the plan sup start resolved (name, workspace, role, profile, command, cwd, env)",
		"hint", "to run with the new frontmatter: sup stop, then sup start")
}

// maxFrontmatterRead bounds what a respawn reads of the document: the
// frontmatter is at its start.
const maxFrontmatterRead = 1 << 20

func readFrontmatterBounded(doc string) (plan.Frontmatter, error) {
	f, err := os.OpenFile(doc, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return plan.Frontmatter{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return plan.Frontmatter{}, err
	}
	if !info.Mode().IsRegular() {
		return plan.Frontmatter{}, fmt.Errorf("not a regular file (%s)", info.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFrontmatterRead))
	if err != nil {
		return plan.Frontmatter{}, err
	}
	return plan.ParseFrontmatter(doc, data)
}

// followResize copies the pane's size to the child's pty now and on every
// SIGWINCH.
func (s *Session) followResize() (stop func()) {
	if !s.term.inTTY {
		return func() {}
	}
	s.resizer = resize.Follow(s.term.in, func(ws *pty.Winsize) error {
		if ws.Rows == 0 || ws.Cols == 0 {
			return nil // not a real size (a detached pty); keep the last one
		}
		changed := false
		n := s.owner.update(func() bool {
			changed = s.owner.run.size != *ws
			s.owner.run.size = *ws
			return changed
		})
		c := n.run.child
		if changed {
			s.log.Info("resize", "rows", ws.Rows, "cols", ws.Cols)
			s.publish(ipc.EventResize, ipc.ResizeEvent{Rows: int(ws.Rows), Cols: int(ws.Cols)})
		}
		if v := s.display.view(); v != nil {
			v.model.Resize(int(ws.Cols), int(ws.Rows))
		}
		if c == nil {
			return nil
		}
		return proc.SetSize(c.Master(), ws)
	})
	return s.resizer.Stop
}
