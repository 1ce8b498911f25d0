package foreground

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// start runs argv on a fresh pty, drains its output and ends it with the
// test.
func start(t *testing.T, argv ...string) *os.File {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TERM=xterm", "HOME=" + t.TempDir(), "PS1=$ "}
	master, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, master) // Best effort: ends with the master.
	t.Cleanup(func() {
		cmd.Process.Kill() // Best effort.
		cmd.Wait()         // Best effort.
		master.Close()
	})
	return master
}

// waitFor samples until the wait is want, or fails after 5 s showing the
// last facts.
func waitFor(t *testing.T, master *os.File, want Wait) Facts {
	t.Helper()
	var f Facts
	var err error
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if f, err = Sample(master); err == nil && f.Wait == want {
			return f
		}
	}
	t.Fatalf("foreground never %s: last %+v (err %v)", want, f, err)
	return f
}

func TestSampleCatReads(t *testing.T) {
	f := waitFor(t, start(t, "cat"), Reading)
	if !strings.Contains(f.Call, "read fd 0") {
		t.Errorf("call %q, want a read of fd 0", f.Call)
	}
}

func TestSampleInteractiveShellReads(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash") // Debian always has it; the sh test below covers the rule.
	}
	waitFor(t, start(t, "bash", "--norc", "--noprofile", "-i"), Reading)
}

func TestSampleSleepWorks(t *testing.T) {
	f := waitFor(t, start(t, "sleep", "30"), Working)
	if !strings.Contains(f.Call, "sleep") {
		t.Logf("call %q", f.Call) // the name varies by arch: clock_nanosleep, nanosleep
	}
}

// The loop of issue #12: sh waits for sleep, sleep sleeps; no sample, at
// whatever moment, may say it reads the terminal.
func TestSamplePrintingLoopNeverReads(t *testing.T) {
	master := start(t, "sh", "-c", "while :; do echo working; sleep 0.2; done")
	waitFor(t, master, Working)
	for i := 0; i < 100; i++ {
		f, err := Sample(master)
		if err != nil {
			t.Fatal(err)
		}
		if f.Wait == Reading {
			t.Fatalf("sample %d: %+v reads the terminal", i, f)
		}
		time.Sleep(7 * time.Millisecond)
	}
}

// A reader in a pipeline's group: `cat | sort` waits for the human.
func TestSampleGroupMemberReads(t *testing.T) {
	waitFor(t, start(t, "sh", "-c", "cat | sort"), Reading)
}

// A reader deeper in the session: cat is the grandchild of the session
// leader (a subshell forks it), found by walking the session's children,
// never by listing /proc.
func TestSampleGrandchildMemberReads(t *testing.T) {
	waitFor(t, start(t, "sh", "-c", "(cat; true) | sort"), Reading)
}

// otherMembers walks the session from its leader, reading no process
// outside it: with a fake /proc holding one session, a process of the
// group outside the session's tree is not found.
func TestOtherMembersWalksTheSession(t *testing.T) {
	root := t.TempDir()
	proc := func(pid, pgrp int, kids string) {
		dir := fmt.Sprintf("%s/%d/task/%d", root, pid, pid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := fmt.Sprintf("%d (a b) S 1 %d %d 0", pid, pgrp, pid)
		os.WriteFile(fmt.Sprintf("%s/%d/stat", root, pid), []byte(stat), 0o644)
		os.WriteFile(dir+"/children", []byte(kids), 0o644)
	}
	proc(10, 10, "11 12 ") // session leader (a shell)
	proc(11, 11, "13")     // the job's leader
	proc(12, 11, "")       // a member beside it
	proc(13, 11, "")       // a member below it
	proc(99, 11, "")       // same group number, not in the session
	got := otherMembers(root, 10, 11)
	if fmt.Sprint(got) != "[12 13]" {
		t.Fatalf("otherMembers = %v, want [12 13]", got)
	}
}

// A program reading a file, not the terminal, is not waiting for the human.
func TestSampleReadOfAnotherFileWorks(t *testing.T) {
	fifo := t.TempDir() + "/fifo"
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Fatal(err)
	}
	// The open of the fifo blocks until a writer comes: keep one open.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	f := waitFor(t, start(t, "sh", "-c", "exec cat <"+fifo), Working)
	if !strings.Contains(f.Call, "read fd 0") {
		t.Logf("call %q", f.Call)
	}
}

func TestSampleClosedMaster(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	slave.Close()
	master.Close()
	if _, err := Sample(master); err == nil {
		t.Fatal("Sample of a closed master: no error")
	}
}

// The cost of one sample: a /proc scan plus the group's syscall files.
func BenchmarkSample(b *testing.B) {
	cmd := exec.Command("cat")
	master, err := pty.Start(cmd)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait(); master.Close() }()
	for b.Loop() {
		if _, err := Sample(master); err != nil {
			b.Fatal(err)
		}
	}
}
