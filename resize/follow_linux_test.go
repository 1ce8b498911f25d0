//go:build linux

package resize

import (
	"errors"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// openPair opens a pty pair and closes both ends when the test ends.
func openPair(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ptmx.Close()
		tty.Close()
	})
	return ptmx, tty
}

func setsize(t *testing.T, f *os.File, cols, rows uint16) {
	t.Helper()
	if err := pty.Setsize(f, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		t.Fatal(err)
	}
}

func winch(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
}

// waitSize waits until f reports cols x rows.
func waitSize(t *testing.T, f *os.File, cols, rows uint16) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ws, err := pty.GetsizeFull(f)
		if err != nil {
			t.Fatal(err)
		}
		if ws.Cols == cols && ws.Rows == rows {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("size is %dx%d, want %dx%d", ws.Cols, ws.Rows, cols, rows)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestFollowCopiesSizeAtStartAndOnSIGWINCH(t *testing.T) {
	_, outer := openPair(t)
	inner, _ := openPair(t)
	setsize(t, outer, 100, 30)

	f := Follow(outer, func(ws *pty.Winsize) error { return pty.Setsize(inner, ws) })
	defer f.Stop()
	waitSize(t, inner, 100, 30)

	setsize(t, outer, 132, 43)
	winch(t)
	waitSize(t, inner, 132, 43)

	// A burst of resizes must end at the last size.
	for i := uint16(1); i <= 20; i++ {
		setsize(t, outer, 60+i, 10+i)
		winch(t)
	}
	waitSize(t, inner, 80, 30)
}

func TestSyncAppliesToReplacedPty(t *testing.T) {
	_, outer := openPair(t)
	first, _ := openPair(t)
	second, _ := openPair(t)
	setsize(t, outer, 90, 25)

	// The supervisor swaps the pty on restart; apply reads the current one.
	var mu sync.Mutex
	cur := first
	f := Follow(outer, func(ws *pty.Winsize) error {
		mu.Lock()
		defer mu.Unlock()
		return pty.Setsize(cur, ws)
	})
	defer f.Stop()
	waitSize(t, first, 90, 25)

	mu.Lock()
	cur = second
	mu.Unlock()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	waitSize(t, second, 90, 25)
}

func TestSyncReportsErrors(t *testing.T) {
	// A regular file has no window size.
	notTTY, err := os.CreateTemp(t.TempDir(), "plain")
	if err != nil {
		t.Fatal(err)
	}
	defer notTTY.Close()
	called := false
	f := Follow(notTTY, func(*pty.Winsize) error { called = true; return nil })
	defer f.Stop()
	if err := f.Sync(); err == nil {
		t.Fatal("Sync on a regular file: want error")
	}

	_, outer := openPair(t)
	boom := errors.New("boom")
	g := Follow(outer, func(*pty.Winsize) error { return boom })
	defer g.Stop()
	if err := g.Sync(); err != boom {
		t.Fatalf("Sync = %v, want %v", err, boom)
	}
	f.Stop()
	if called {
		t.Fatal("apply was called although the size could not be read")
	}
}

func TestStopEndsFollowing(t *testing.T) {
	_, outer := openPair(t)
	inner, _ := openPair(t)
	setsize(t, outer, 70, 20)
	f := Follow(outer, func(ws *pty.Winsize) error { return pty.Setsize(inner, ws) })
	waitSize(t, inner, 70, 20)
	f.Stop()
	f.Stop() // twice is fine

	setsize(t, outer, 71, 21)
	winch(t)
	time.Sleep(100 * time.Millisecond)
	ws, err := pty.GetsizeFull(inner)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Cols != 70 || ws.Rows != 20 {
		t.Fatalf("size changed to %dx%d after Stop", ws.Cols, ws.Rows)
	}
}

func waitOutput(t *testing.T, out *testutil.Buffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("child output never contained %q; got:\n%s", want, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestChildSeesNewSize is the whole chain: the outer terminal changes, we
// get SIGWINCH, the inner pty changes, the kernel signals the child, and
// the child reads the new size from its own terminal.
func TestChildSeesNewSize(t *testing.T) {
	_, outer := openPair(t)
	setsize(t, outer, 80, 24)

	cmd := exec.Command("sh", "-c", `trap 'echo "winch $(stty size)"' WINCH; echo ready; while :; do sleep 0.05; done`)
	inner, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 10, Rows: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		inner.Close()
	})
	var out testutil.Buffer
	go io.Copy(&out, inner)
	waitOutput(t, &out, "ready")

	f := Follow(outer, func(ws *pty.Winsize) error { return pty.Setsize(inner, ws) })
	defer f.Stop()
	// stty size prints rows then columns.
	waitOutput(t, &out, "winch 24 80")

	setsize(t, outer, 123, 45)
	winch(t)
	waitOutput(t, &out, "winch 45 123")
}
