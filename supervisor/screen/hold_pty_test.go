//go:build linux

package screen

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestHoldRealPty: a real program on a real pty draws a dialog, then a
// burst bigger than the model's budget that moves the cursor about
// without clearing (so it is cut: a gap) and redraws only part of the
// screen. The dialog drawn before the gap is still shown, and every look
// is held; once the program clears the screen and draws its next
// question, the look goes through and reads that one.
func TestHoldRealPty(t *testing.T) {
	// The burst waits for a line after the dialog: a loaded machine read
	// both in one read and the model's budget dropped the dialog too.
	script := `printf 'Allow deploy? [y/n]\r\n'
read x
i=0; while [ $i -lt 400 ]; do printf '\033[5;1Hburst %d' $i; i=$((i+1)); done > /tmp/burst.$$
cat /tmp/burst.$$; rm -f /tmp/burst.$$
read x
printf '\033[2J\033[HAllow fresh? [y/n]'
read x`
	cmd := exec.Command("sh", "-c", script)
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 40, Rows: 10})
	if err != nil {
		t.Fatal(err)
	}
	m := NewModel(40, 10, Options{QueueBytes: 256})
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			m.Feed(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // Best effort: it may have exited.
		_ = cmd.Wait()         // Best effort: killed.
		master.Close()
		<-done
		m.Close()
	})
	wait := func(what string, cond func(Snapshot) bool) Snapshot {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			m.Sync()
			snap := m.Snapshot()
			if cond(snap) {
				return snap
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: stats %+v, screen %q", what, m.Stats(), snap.Text)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var h Hold
	t0 := time.Unix(1000, 0)
	wait("the dialog", func(s Snapshot) bool { return strings.Contains(s.Text, "deploy?") })
	if _, err := io.WriteString(master, "\n"); err != nil {
		t.Fatal(err)
	}
	snap := wait("the burst", func(s Snapshot) bool { return strings.Contains(s.Text, "burst 399") })
	if !snap.Desynced || !strings.Contains(snap.Text, "deploy?") {
		t.Fatalf("after a burst over the budget: desynced %v, screen %q, stats %+v", snap.Desynced, snap.Text, m.Stats())
	}
	if ok, _, _ := h.Look(snap, t0); ok {
		t.Fatal("a look read the desynced screen with the stale dialog")
	}
	if _, err := io.WriteString(master, "\n"); err != nil && !errors.Is(err, os.ErrClosed) {
		t.Fatal(err)
	}
	snap = wait("the next question", func(s Snapshot) bool { return strings.Contains(s.Text, "Allow fresh?") })
	ok, _, held := h.Look(snap, t0.Add(time.Second))
	if !ok || held != time.Second || strings.Contains(snap.Text, "deploy") {
		t.Fatalf("after the clear: ok %v held %v screen %q", ok, held, snap.Text)
	}
}
