//go:build linux

package testutil

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// agent is a fakeagent running on a pty of its own, as sup would run it.
type agent struct {
	cmd  *exec.Cmd
	ptmx *os.File
	out  Buffer
	done chan struct{} // closed once the output is drained and cmd waited
	err  error         // cmd.Wait's result, set before done closes
}

// startAgent runs fakeagent with args on a fresh 80x24 pty and kills it
// when the test ends.
func startAgent(t *testing.T, args ...string) *agent {
	t.Helper()
	bin := FakeAgent(t)
	a := &agent{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	a.cmd.Dir = t.TempDir()
	a.cmd.Env = append(os.Environ(), "FAKEAGENT_TEST_VAR=x y")
	ptmx, err := pty.StartWithSize(a.cmd, &pty.Winsize{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	a.ptmx = ptmx
	go func() {
		// EIO, not EOF, is how a pty master ends once the child is gone.
		_, _ = io.Copy(&a.out, ptmx)
		a.err = a.cmd.Wait()
		close(a.done)
	}()
	t.Cleanup(func() {
		_ = a.cmd.Process.Kill()
		select {
		case <-a.done:
		case <-time.After(10 * time.Second):
			t.Errorf("fakeagent did not go away")
		}
		ptmx.Close()
		if t.Failed() {
			t.Logf("fakeagent output:\n%s", a.out.String())
		}
	})
	return a
}

func (a *agent) waitFor(t *testing.T, substr string) {
	t.Helper()
	// On timeout the cleanup logs the output.
	WaitUntil(t, 10*time.Second, "fakeagent to print "+strconv.Quote(substr), func() bool {
		return strings.Contains(a.out.String(), substr)
	})
}

// wait waits for fakeagent to exit and returns its wait status.
func (a *agent) wait(t *testing.T) syscall.WaitStatus {
	t.Helper()
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("fakeagent did not exit; output:\n%s", a.out.String())
	}
	var ee *exec.ExitError
	if a.err != nil && !errors.As(a.err, &ee) {
		t.Fatal(a.err)
	}
	return a.cmd.ProcessState.Sys().(syscall.WaitStatus)
}

func TestFakeAgentStartupOutput(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	a := startAgent(t, "-print-cwd", "-print-env", "-print-size", "-title", "hello", "-bracketed", "-starts", starts)
	a.waitFor(t, "fakeagent ready pid=")
	out := a.out.String()
	for _, want := range []string{
		"cwd=" + a.cmd.Dir + "\r\n",
		"env FAKEAGENT_TEST_VAR=x y\r\n",
		"size=80x24\r\n",
		"\x1b]0;hello\a",
		"\x1b[?2004h",
		"fakeagent ready pid=" + strconv.Itoa(a.cmd.Process.Pid) + "\r\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	b, err := os.ReadFile(starts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "start pid="+strconv.Itoa(a.cmd.Process.Pid)+"\n"; got != want {
		t.Errorf("starts file = %q, want %q", got, want)
	}
}

func TestFakeAgentEchoWinchAndEOF(t *testing.T) {
	a := startAgent(t, "-echo")
	a.waitFor(t, "fakeagent ready")
	if _, err := a.ptmx.WriteString("hello there\n"); err != nil {
		t.Fatal(err)
	}
	a.waitFor(t, "got: hello there\r\n")
	if err := pty.Setsize(a.ptmx, &pty.Winsize{Cols: 101, Rows: 33}); err != nil {
		t.Fatal(err)
	}
	a.waitFor(t, "winch size=101x33\r\n")
	// ^D on an empty line is EOF in cooked mode.
	if _, err := a.ptmx.Write([]byte{4}); err != nil {
		t.Fatal(err)
	}
	a.waitFor(t, "fakeagent stdin EOF")
	if ws := a.wait(t); ws.ExitStatus() != 0 {
		t.Fatalf("exit status %d, want 0", ws.ExitStatus())
	}
}

func TestFakeAgentRaw(t *testing.T) {
	a := startAgent(t, "-raw", "-echo")
	a.waitFor(t, "fakeagent ready")
	// In raw mode ^C is a byte, not SIGINT, and no line discipline waits
	// for Enter.
	if _, err := a.ptmx.Write([]byte{'a', 3}); err != nil {
		t.Fatal(err)
	}
	a.waitFor(t, "key: 61\r\nkey: 03\r\n")
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a.waitFor(t, "fakeagent got SIGTERM")
	if ws := a.wait(t); ws.ExitStatus() != 143 {
		t.Fatalf("exit status %d, want 143", ws.ExitStatus())
	}
}

func TestFakeAgentExitAfter(t *testing.T) {
	start := time.Now()
	a := startAgent(t, "-exit", "7", "-after", "200ms")
	ws := a.wait(t)
	if ws.ExitStatus() != 7 {
		t.Fatalf("exit status %d, want 7", ws.ExitStatus())
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("exited after %v, want at least 200ms", d)
	}
}

func TestFakeAgentDiesBySignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGSEGV, syscall.SIGABRT} {
		name := strings.TrimPrefix(sigName(sig), "SIG")
		t.Run(name, func(t *testing.T) {
			a := startAgent(t, "-signal", name, "-after", "50ms")
			ws := a.wait(t)
			if !ws.Signaled() || ws.Signal() != sig {
				t.Fatalf("wait status %v (signaled=%v exit=%d), want killed by %v", ws, ws.Signaled(), ws.ExitStatus(), sig)
			}
		})
	}
}

func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	}
	return s.String()
}

func TestFakeAgentSignals(t *testing.T) {
	a := startAgent(t, "-ignore-term")
	a.waitFor(t, "fakeagent ready")
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a.waitFor(t, "fakeagent got SIGTERM, ignoring")
	// ^C in cooked mode is SIGINT to the foreground group.
	if _, err := a.ptmx.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	a.waitFor(t, "fakeagent got SIGINT")
	if ws := a.wait(t); ws.ExitStatus() != 130 {
		t.Fatalf("exit status %d, want 130", ws.ExitStatus())
	}
}

func TestFakeAgentFlood(t *testing.T) {
	const n = 1 << 20
	a := startAgent(t, "-flood", strconv.Itoa(n))
	if ws := a.wait(t); ws.ExitStatus() != 0 {
		t.Fatalf("exit status %d", ws.ExitStatus())
	}
	out := a.out.String()
	_, flood, ok := strings.Cut(out, "\r\n")
	if !ok {
		t.Fatal("no ready line")
	}
	flood, ok = strings.CutSuffix(flood, "fakeagent flood done\r\n")
	if !ok {
		t.Fatalf("output does not end in the done line: %q", out[max(0, len(out)-100):])
	}
	// The pty turned every \n into \r\n.
	if got := len(strings.ReplaceAll(flood, "\r\n", "\n")); got != n {
		t.Fatalf("flood was %d bytes, want %d", got, n)
	}
}

func readDaemonPID(t *testing.T, pidfile string) int {
	t.Helper()
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

func TestFakeAgentDaemon(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "daemon.pid")
	a := startAgent(t, "-daemon", "-daemon-pidfile", pidfile)
	a.waitFor(t, "fakeagent ready")
	pid := readDaemonPID(t, pidfile)
	if fd, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/1"); fd != os.DevNull {
		t.Errorf("daemon's stdout is %q, want %s", fd, os.DevNull)
	}

	procs := SessionMembers(pid)
	if len(procs) != 1 || procs[0].PID != pid || procs[0].PGID != pid {
		t.Fatalf("daemon should lead its own session and group; session %d holds %v", pid, procs)
	}
	// Killing the agent's group and hanging up its pty leave it running.
	_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
	a.ptmx.Close()
	a.wait(t)
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if !ProcessAlive(pid) {
		t.Fatal("daemon died with its parent or of SIGHUP")
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	WaitUntil(t, 20*time.Second, "daemon to die", func() bool { return !ProcessAlive(pid) })
}

func TestFakeAgentDaemonKeepTTY(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "daemon.pid")
	a := startAgent(t, "-daemon", "-daemon-keep-tty", "-daemon-pidfile", pidfile)
	a.waitFor(t, "fakeagent ready")
	pid := readDaemonPID(t, pidfile)
	fd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(fd, "/dev/pts/") {
		t.Fatalf("daemon's stdout is %q, want the pty", fd)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
