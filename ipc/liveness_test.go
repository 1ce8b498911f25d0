//go:build linux

package ipc

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestPIDAliveZombie: a supervisor SIGKILLed in a tmux pane stays a zombie
// until tmux reaps it (seen taking tens of seconds); its queue file must
// not count meanwhile.
func TestPIDAliveZombie(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Wait() }) // Best effort: reaps it.
	pid := cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for {
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never became a zombie", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if PIDAlive(pid) {
		t.Fatalf("PIDAlive(%d) = true for a zombie", pid)
	}
	if !PIDAlive(os.Getpid()) {
		t.Fatal("PIDAlive(self) = false")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if PIDAlive(pid) {
		t.Fatalf("PIDAlive(%d) = true after it was reaped", pid)
	}
}

func TestSocketLiveStaleAndSessionLive(t *testing.T) {
	dir := shortDir(t)
	live := startServer(t, ServerConfig{}, nil)
	stale := filepath.Join(dir, "aaaaaaaaaaaa.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the file stays, nobody listens: a SIGKILLed supervisor's
	for _, tc := range []struct {
		path              string
		wantLive, wantOld bool
	}{{live.path, true, false}, {stale, false, true}, {filepath.Join(dir, "none.sock"), false, false}} {
		l, err1 := SocketLive(tc.path)
		s, err2 := SocketStale(tc.path)
		if l != tc.wantLive || s != tc.wantOld || err1 != nil || err2 != nil {
			t.Errorf("%s: live %v stale %v (%v %v), want %v %v", tc.path, l, s, err1, err2, tc.wantLive, tc.wantOld)
		}
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("SocketStale removed the stale socket: %v", err)
	}
	if SessionLive(dir, "aaaaaaaaaaaa") || SessionLive(dir, "../bad") {
		t.Error("SessionLive true for a stale socket or a bad id")
	}
	notSock := filepath.Join(dir, "file.sock")
	os.WriteFile(notSock, nil, 0o600)
	if _, err := SocketStale(notSock); err == nil {
		t.Error("SocketStale on a regular file: no error")
	}
}
