package supervisor

import (
	"errors"
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
	ptmx      *os.File
	pid       int
	startedAt time.Time
	resumed   bool

	outputDone chan struct{} // the output pump hit EOF (or the master closed)
	done       chan struct{} // reaped; code and signal are set
	code       int           // exit code, or 128+signal number
	signal     string        // "SIGKILL" etc., "" for a normal exit
}

// startChild starts argv behind a new pty. pty.StartWithSize sets Setsid and
// Setctty, so the child is a session leader and its pgid is its pid.
func startChild(argv []string, dir string, env []string, size *pty.Winsize) (*child, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	ptmx, err := pty.StartWithSize(cmd, size)
	if err != nil {
		return nil, err
	}
	return &child{
		cmd:        cmd,
		ptmx:       ptmx,
		pid:        cmd.Process.Pid,
		startedAt:  time.Now(),
		outputDone: make(chan struct{}),
		done:       make(chan struct{}),
	}, nil
}

// wait reaps the child, lets the output pump drain what the child wrote last,
// then hangs up its process group and closes the master. Only exec.Cmd.Wait
// reaps: a Wait4(-1) reaper beside it would steal exit statuses.
func (c *child) wait() {
	err := c.cmd.Wait()
	c.code, c.signal = exitStatus(c.cmd.ProcessState, err)
	// The pump ends with EIO once no process holds the slave; a leftover
	// background job would hold it forever, so wait only briefly.
	select {
	case <-c.outputDone:
	case <-time.After(500 * time.Millisecond):
	}
	// What a terminal does when it closes: leftovers of the group get SIGHUP.
	c.signalGroup(syscall.SIGHUP)
	c.ptmx.Close() // Best effort: unblocks the pump if it is still reading.
	close(c.done)
}

// signalGroup signals the child's whole process group.
func (c *child) signalGroup(sig syscall.Signal) {
	syscall.Kill(-c.pid, sig) // Best effort: ESRCH when the group is gone.
}

// terminate ends the child: SIGTERM to the group, then SIGKILL after grace
// (grace 0: SIGKILL at once). It returns once the child is reaped.
func (c *child) terminate(grace time.Duration) {
	if grace > 0 {
		c.signalGroup(syscall.SIGTERM)
		select {
		case <-c.done:
			return
		case <-time.After(grace):
		}
	}
	c.signalGroup(syscall.SIGKILL)
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
