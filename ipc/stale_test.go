//go:build linux

package ipc

import (
	"bufio"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
)

// leaveStaleSocket creates a socket file nobody listens on, as a crashed
// server leaves behind.
func leaveStaleSocket(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("no stale socket file: %v", err)
	}
}

func TestCleanStale(t *testing.T) {
	dir := shortDir(t)
	path := filepath.Join(dir, "x.sock")

	// Nothing there.
	if removed, err := CleanStale(path); removed || err != nil {
		t.Fatalf("missing path: %v %v", removed, err)
	}
	// Stale: removed, lock file and queue file gone too; Dial reports
	// ErrStale first.
	leaveStaleSocket(t, path)
	queueFile := paths.QueueFile(dir, "x")
	if err := os.MkdirAll(filepath.Dir(queueFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(queueFile, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(path, time.Second); !errors.Is(err, ErrStale) {
		t.Fatalf("Dial on a stale socket: %v, want ErrStale", err)
	}
	if removed, err := CleanStale(path); !removed || err != nil {
		t.Fatalf("stale socket: removed %v, err %v", removed, err)
	}
	for _, p := range []string{path, path + ".lock", queueFile} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s still there: %v", p, err)
		}
	}
	if _, err := Dial(path, time.Second); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Dial on a missing socket: %v, want ErrNotExist", err)
	}
	// Live: never removed.
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if removed, err := CleanStale(path); removed || err != nil {
		t.Fatalf("live socket: removed %v, err %v", removed, err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("live socket removed: %v", err)
	}
	// Not a socket: error, untouched.
	file := filepath.Join(dir, "notes.md")
	os.WriteFile(file, []byte("keep me"), 0o600)
	if removed, err := CleanStale(file); removed || err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("regular file: removed %v, err %v", removed, err)
	}
	if _, err := Listen(file); err == nil {
		t.Fatal("Listen replaced a regular file")
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Fatal("regular file changed")
	}
}

func TestListenReplacesStale(t *testing.T) {
	path := filepath.Join(shortDir(t), "y.sock")
	leaveStaleSocket(t, path)
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer ln.Close()
	if _, err := Listen(path); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "already listening") {
		t.Fatalf("second Listen: %v, want ErrInUse", err)
	}
}

// TestHelperListener is not a test: the killed-server test runs the test
// binary as a child that listens and then waits to be killed.
func TestHelperListener(t *testing.T) {
	path := os.Getenv("SUP_IPC_TEST_LISTEN")
	if path == "" {
		t.Skip("helper process for TestKilledServerSocket")
	}
	ln, err := Listen(path)
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	_ = ln
	os.Stdout.WriteString("ready\n")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestKilledServerSocket: a server killed with SIGKILL leaves its socket;
// while it lives nothing removes it, once dead CleanStale and Listen do.
func TestKilledServerSocket(t *testing.T) {
	path := filepath.Join(shortDir(t), "k.sock")
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperListener$")
		cmd.Env = append(os.Environ(), "SUP_IPC_TEST_LISTEN="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper said %q", line)
		}
		return cmd
	}
	kill := func(cmd *exec.Cmd) {
		cmd.Process.Kill()
		cmd.Wait()
	}

	cmd := start()
	if removed, err := CleanStale(path); removed || err != nil {
		kill(cmd)
		t.Fatalf("live server's socket: removed %v, err %v", removed, err)
	}
	if _, err := Listen(path); !errors.Is(err, ErrInUse) {
		kill(cmd)
		t.Fatalf("Listen beside a live server: %v", err)
	}
	kill(cmd)
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("killed server left no socket (test premise): %v", err)
	}
	if removed, err := CleanStale(path); !removed || err != nil {
		t.Fatalf("killed server's socket: removed %v, err %v", removed, err)
	}

	cmd = start()
	kill(cmd)
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a killed server's socket: %v", err)
	}
	ln.Close()
}

// TestConcurrentCleanersAndListener: many cleaners racing a starting
// server never remove its socket.
func TestConcurrentCleanersAndListener(t *testing.T) {
	for round := 0; round < 20; round++ {
		path := filepath.Join(shortDir(t), "z.sock")
		leaveStaleSocket(t, path)
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				CleanStale(path)
			}()
		}
		ln, err := Listen(path)
		if err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatalf("round %d: the live socket was removed: %v", round, err)
		}
		c.Close()
		ln.Close()
	}
}
