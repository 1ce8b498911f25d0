//go:build linux

package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Child is one run of the agent: a process that leads its own session and
// process group, with the pty slave as its controlling terminal.
type Child struct {
	// Resumed records that the run resumed a known conversation; the
	// spawner sets it, the child never reads it.
	Resumed bool

	cmd       *exec.Cmd
	ptmx      *os.File // non-blocking, so Close and deadlines interrupt I/O
	pid       int
	startedAt time.Time

	outputDone chan struct{} // the output pump hit EOF (or the master closed)
	done       chan struct{} // reaped; code and signal are set
	code       int           // exit code, or 128+signal number
	signal     string        // "SIGKILL" etc., "" for a normal exit
}

// StartChild starts argv behind a new pty of the given size. pty.StartWithSize sets Setsid and
// Setctty, so the child is a session leader: its pid is its pgid and sid —
// never sup's session, which is how the family code tells the agent's
// processes from sup's helpers.
func StartChild(argv []string, dir string, env []string, size *pty.Winsize) (*Child, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	if spawnReqs != nil {
		// Forked on the spawning thread, which lives as long as sup: a
		// SIGKILLed sup takes the agent along (specs/reliability.md).
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	}
	var ptmx *os.File
	err := forkOwned(func() (int, error) {
		var err error
		if ptmx, err = pty.StartWithSize(cmd, size); err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	})
	if err != nil {
		return nil, err
	}
	master, err := Pollable(ptmx)
	if err != nil {
		cmd.Process.Kill() // Best effort: we cannot talk to it.
		cmd.Wait()
		disown(cmd.Process.Pid)
		return nil, fmt.Errorf("pty master: %w", err)
	}
	return &Child{
		cmd:        cmd,
		ptmx:       master,
		pid:        cmd.Process.Pid,
		startedAt:  time.Now(),
		outputDone: make(chan struct{}),
		done:       make(chan struct{}),
	}, nil
}

// Pollable returns the pty master as a non-blocking *os.File. creack/pty
// calls Fd() on it, which puts it in blocking mode: then Close cannot
// interrupt a Read, and a Write into a full pty whose child stopped reading
// blocks forever (https://github.com/creack/pty/issues/167). A duplicate set
// to O_NONBLOCK goes through Go's poller instead.
func Pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// Master is the pty master: non-blocking, so Close and deadlines
// interrupt reads and writes.
func (c *Child) Master() *os.File { return c.ptmx }

// PID is the child's pid, which is also its process group and session.
func (c *Child) PID() int { return c.pid }

// StartedAt is when the child was started.
func (c *Child) StartedAt() time.Time { return c.startedAt }

// Done is closed once the child is reaped (Wait returned); Exit is then
// valid.
func (c *Child) Done() <-chan struct{} { return c.done }

// Exit is the child's exit code (128+signal number when killed by one) and
// the signal's name ("" for a normal exit). Valid once Done is closed.
func (c *Child) Exit() (code int, signal string) { return c.code, c.signal }

// Pump copies the child's output to dst and tap (CopyOutput) until the
// end of its output, and then lets Wait proceed. Run it on its own
// goroutine, once.
func (c *Child) Pump(dst io.Writer, tap func([]byte)) {
	defer close(c.outputDone)
	CopyOutput(dst, c.ptmx, tap)
}

// Wait waits for the child to exit, lets the output pump drain what it
// wrote last, ends what is left of its session, then reaps it. The child
// stays a zombie until then (WNOWAIT), so its pid — which names its process
// group and session — cannot be reused while they are signalled. Only
// exec.Cmd.Wait reaps: a Wait4(-1) reaper beside it would steal statuses.
func (c *Child) Wait() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, c.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	// The pump ends with EIO once no process holds the slave; a leftover
	// would hold it forever, so wait only briefly.
	select {
	case <-c.outputDone:
	case <-time.After(500 * time.Millisecond):
	}
	endSession(c.pid)
	err := c.cmd.Wait()
	disown(c.pid)
	c.code, c.signal = exitStatus(c.cmd.ProcessState, err)
	c.ptmx.Close() // Best effort: unblocks the pump if it is still reading.
	close(c.done)
}

// Terminate ends the child the way a closing terminal would, then harder:
// SIGHUP (and SIGCONT, so a stopped job sees it) to its session; after
// hupWait, SIGTERM; after grace in all, SIGKILL (grace 0: SIGKILL at
// once). An interactive shell ignores SIGTERM but ends on the hangup, so
// it goes at once instead of after the whole grace (specs/supervisor.md,
// "Stopping"). It returns once the child is reaped, with the signal that
// ended it: the last one sent before it went.
func (c *Child) Terminate(grace time.Duration) (endedBy string) {
	if grace > 0 {
		hupWait := min(grace/2, HupWait)
		signalSession(c.pid, syscall.SIGHUP)
		signalSession(c.pid, syscall.SIGCONT)
		if c.waitDone(hupWait) {
			return "SIGHUP"
		}
		signalSession(c.pid, syscall.SIGTERM)
		if c.waitDone(grace - hupWait) {
			if _, sig := c.Exit(); sig == "SIGHUP" {
				// It died of the hangup; Wait (draining its output,
				// ending its session) took longer than hupWait on a
				// loaded machine (TestChildTerminateOrder in a CI run).
				return "SIGHUP"
			}
			return "SIGTERM"
		}
	}
	signalSession(c.pid, syscall.SIGKILL)
	<-c.done
	return "SIGKILL"
}

// waitDone waits up to d for the child to be reaped.
func (c *Child) waitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.done:
		return true
	case <-t.C:
		return false
	}
}

// HupWait is how long Terminate waits after the SIGHUP before the SIGTERM
// (at most half the grace): a program that ends on a hangup does so at
// once.
const HupWait = time.Second

func exitStatus(ps *os.ProcessState, err error) (code int, signal string) {
	if ps == nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ps = ee.ProcessState
		}
	}
	if ps == nil {
		return 1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), unix.SignalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}
