package supervisor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// child is one run of the agent: a process that leads its own session and
// process group, with the pty slave as its controlling terminal.
type child struct {
	cmd       *exec.Cmd
	ptmx      *os.File // non-blocking, so Close and deadlines interrupt I/O
	pid       int
	startedAt time.Time
	resumed   bool

	outputDone chan struct{} // the output pump hit EOF (or the master closed)
	done       chan struct{} // reaped; code and signal are set
	code       int           // exit code, or 128+signal number
	signal     string        // "SIGKILL" etc., "" for a normal exit
}

// startChild starts argv behind a new pty. pty.StartWithSize sets Setsid and
// Setctty, so the child is a session leader: its pid is its pgid and sid —
// never sup's session, which is how the family code tells the agent's
// processes from sup's helpers.
func startChild(argv []string, dir string, env []string, size *pty.Winsize) (*child, error) {
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
	master, err := pollable(ptmx)
	if err != nil {
		cmd.Process.Kill() // Best effort: we cannot talk to it.
		cmd.Wait()
		disown(cmd.Process.Pid)
		return nil, fmt.Errorf("pty master: %w", err)
	}
	return &child{
		cmd:        cmd,
		ptmx:       master,
		pid:        cmd.Process.Pid,
		startedAt:  time.Now(),
		outputDone: make(chan struct{}),
		done:       make(chan struct{}),
	}, nil
}

// pollable returns the pty master as a non-blocking *os.File. creack/pty
// calls Fd() on it, which puts it in blocking mode: then Close cannot
// interrupt a Read, and a Write into a full pty whose child stopped reading
// blocks forever (https://github.com/creack/pty/issues/167). A duplicate set
// to O_NONBLOCK goes through Go's poller instead.
func pollable(f *os.File) (*os.File, error) {
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

// wait waits for the child to exit, lets the output pump drain what it
// wrote last, ends what is left of its session, then reaps it. The child
// stays a zombie until then (WNOWAIT), so its pid — which names its process
// group and session — cannot be reused while they are signalled. Only
// exec.Cmd.Wait reaps: a Wait4(-1) reaper beside it would steal statuses.
func (c *child) wait() {
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

// terminate ends the child: SIGTERM to its session, then SIGKILL after
// grace (grace 0: SIGKILL at once). It returns once the child is reaped.
func (c *child) terminate(grace time.Duration) {
	if grace > 0 {
		signalSession(c.pid, syscall.SIGTERM)
		select {
		case <-c.done:
			return
		case <-time.After(grace):
		}
	}
	signalSession(c.pid, syscall.SIGKILL)
	<-c.done
}

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
