//go:build linux

package testutil

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestProcessAndGroupAlive(t *testing.T) {
	if !ProcessAlive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	// A group of its own, with a second member, so GroupMembers has
	// something to find.
	cmd := exec.Command("sh", "-c", "sleep 60 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	WaitUntil(t, 20*time.Second, "two processes in the group", func() bool { return len(GroupMembers(pid)) == 2 })
	if !ProcessAlive(pid) || !GroupAlive(pid) {
		t.Fatal("started process or its group not alive")
	}
	for _, p := range GroupMembers(pid) {
		if p.PGID != pid {
			t.Fatalf("unexpected member %v", p)
		}
	}

	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Not yet reaped: the shell is a zombie, which counts as gone.
	WaitUntil(t, 20*time.Second, "the group to die", func() bool { return !GroupAlive(pid) })
	if ProcessAlive(pid) {
		t.Fatal("zombie counted as alive")
	}
	_ = cmd.Wait()
	if ProcessAlive(pid) || GroupAlive(pid) || len(GroupMembers(pid)) != 0 {
		t.Fatal("reaped process still seen")
	}
}

func TestSessionMembersFindsThisProcess(t *testing.T) {
	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range SessionMembers(sid) {
		if p.PID == os.Getpid() {
			found = true
		}
	}
	if !found {
		t.Fatalf("process %d not in its own session %d", os.Getpid(), sid)
	}
}

func TestWaitUntilReturnsWhenTrue(t *testing.T) {
	n := 0
	WaitUntil(t, 20*time.Second, "n to reach 3", func() bool { n++; return n >= 3 })
	if n != 3 {
		t.Fatalf("cond called %d times, want 3", n)
	}
}

func TestBuildPackageBuildsOnce(t *testing.T) {
	a := FakeAgent(t)
	b := FakeAgent(t)
	if a != b {
		t.Fatalf("two builds: %s, %s", a, b)
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("%s is not an executable: %v", a, err)
	}
	if _, err := os.Stat(ModuleRoot(t) + "/go.mod"); err != nil {
		t.Fatal(err)
	}
}

// TestWaitProcsGone: it returns nothing once a session's processes end,
// including one started after its first scan, and returns what stays past
// the deadline.
func TestWaitProcsGone(t *testing.T) {
	// A session of its own whose shell, once its first sleeper ends,
	// leaves a second one behind and exits: only a later scan finds it
	// (the first, within the first sleeper's second, finds the shell and
	// the first sleeper).
	cmd := exec.Command("sh", "-c", "sleep 1; sleep 0.5 &")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sid := cmd.Process.Pid
	reaped := make(chan struct{})
	go func() { _ = cmd.Wait(); close(reaped) }() // Its exit status does not matter.
	t.Cleanup(func() {
		_ = syscall.Kill(-sid, syscall.SIGKILL)
		<-reaped
	})
	WaitUntil(t, 20*time.Second, "the first sleeper", func() bool { return len(SessionMembers(sid)) == 2 })
	if left := WaitProcsGone(time.Now().Add(20*time.Second), func() []Proc { return SessionMembers(sid) }); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
	if left := SessionMembers(sid); len(left) != 0 {
		t.Fatalf("returned while %v still ran", left)
	}

	stay := exec.Command("sleep", "60")
	stay.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := stay.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stay.Process.Kill()
		_ = stay.Wait()
	})
	left := WaitProcsGone(time.Now().Add(300*time.Millisecond), func() []Proc { return SessionMembers(stay.Process.Pid) })
	if len(left) != 1 || left[0].PID != stay.Process.Pid {
		t.Fatalf("past the deadline: %v, want the sleeper %d", left, stay.Process.Pid)
	}
}
