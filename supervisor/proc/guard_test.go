//go:build linux

package proc

import (
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestMain lets this test binary be the guard's sweep, as sup's main does:
// the shell guard execs the binary it was started from.
//
// It also takes SIGHUP as sup start does (supervisor/start.go), so the
// children the tests start get its default action whatever this process
// inherited: under nohup SIGHUP comes ignored, an ignored signal stays
// ignored across exec, and TestChildTerminateOrder's child then outlived
// its hangup (two whole runs started with nohup).
func TestMain(m *testing.M) {
	RunGuardIfAsked()
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	os.Exit(m.Run())
}

// victim starts a process marked as session id's (SUP_SESSION) in a
// session of its own, as a daemon of the agent would be; it reports
// whether it is still running.
func victim(t *testing.T, id string) (pid int, alive func() bool) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), "SUP_SESSION="+id)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }() // Best effort: only its end matters.
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	return cmd.Process.Pid, func() bool {
		select {
		case <-done:
			return false
		default:
			return true
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("10s without %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || len(b) == 0
}

// TestGuardShellAndDone: the guard is a shell, not a second Go runtime, and
// a normal exit ("done", no run current) lets it go without sweeping.
func TestGuardShellAndDone(t *testing.T) {
	id := "guardtest-done-" + strconv.Itoa(os.Getpid())
	_, alive := victim(t, id)
	g, err := StartGuard(id, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(g.pid) + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := filepath.EvalSymlinks(guardShell)
	if exe != sh {
		t.Fatalf("the guard runs %s, want the shell %s", exe, sh)
	}
	g.Close()
	waitFor(t, "the guard exiting after done", func() bool { return gone(g.pid) })
	if !alive() {
		t.Fatal("a normal exit swept the session's processes")
	}
}

// TestGuardSweepsWhenSupGoes: when the pipe ends without "done" (sup
// SIGKILLed), the shell guard execs the binary to sweep: the current run's
// session and the processes marked with the session id are killed.
func TestGuardSweepsWhenSupGoes(t *testing.T) {
	for _, shell := range []string{guardShell, "/nonexistent/sh"} {
		t.Run(filepath.Base(filepath.Dir(shell)), func(t *testing.T) {
			defer func(s string) { guardShell = s }(guardShell)
			guardShell = shell
			id := "guardtest-kill-" + strconv.Itoa(os.Getpid()) + filepath.Base(filepath.Dir(shell))
			marked, markedAlive := victim(t, id)
			leader, leaderAlive := victim(t, "unmarked")
			g, err := StartGuard(id, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			g.Run(leader)
			g.w.Close() // as a SIGKILLed sup's pipe would
			waitFor(t, "the sweep killing the marked process "+strconv.Itoa(marked), func() bool { return !markedAlive() })
			waitFor(t, "the sweep killing the run's session "+strconv.Itoa(leader), func() bool { return !leaderAlive() })
			waitFor(t, "the guard exiting", func() bool { return gone(g.pid) })
		})
	}
}

// TestGuardIgnoresTheEnvironment: where /bin/sh is bash, sup's environment
// could switch the shell guard off — SHELLOPTS=noexec ended it at once, an
// exported function replaced its read (the attack trial) — so the guard
// gets none of it: with both set it still sweeps.
func TestGuardIgnoresTheEnvironment(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash: %v (apt-get install bash)", err)
	}
	defer func(s string) { guardShell = s }(guardShell)
	guardShell = bash
	t.Setenv("SHELLOPTS", "noexec")
	t.Setenv("BASH_FUNC_read%%", "() { /bin/sleep 100000; }")
	t.Setenv("BASH_ENV", "/nonexistent/poison")
	t.Setenv("IFS", "x")
	id := "guardtest-env-" + strconv.Itoa(os.Getpid())
	marked, markedAlive := victim(t, id)
	g, err := StartGuard(id, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // a guard the environment broke would be gone by now
	if gone(g.pid) {
		t.Fatal("the guard exited before sup did: the environment reached its shell")
	}
	g.w.Close() // as a SIGKILLed sup's pipe would
	waitFor(t, "the sweep killing the marked process "+strconv.Itoa(marked), func() bool { return !markedAlive() })
	waitFor(t, "the guard exiting", func() bool { return gone(g.pid) })
}
