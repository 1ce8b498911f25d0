//go:build linux

package testutil

import (
	"strings"
	"testing"
	"time"
)

func TestTmuxNewWindowSize(t *testing.T) {
	m := NewTmux(t)
	small := m.NewWindowSize("", 90, 25, nil, "sh", "-c", "stty size; sleep 60")
	m.WaitFor(t, small, "25 90", 5*time.Second)
	// The session's default is back for the next window, and the small
	// one kept its size.
	normal := m.NewWindow(nil, "sh", "-c", "stty size; sleep 60")
	m.WaitFor(t, normal, "40 120", 5*time.Second)
	if got, err := m.Run("display-message", "-p", "-t", small, "#{window_width}x#{window_height}"); err != nil || got != "90x25" {
		t.Fatalf("small window is %q (%v), want 90x25", got, err)
	}
}

func TestTmuxAttachClient(t *testing.T) {
	var pid int
	t.Run("inner", func(t *testing.T) {
		m := NewTmux(t)
		pane := m.NewWindow(nil, "sh", "-c", "stty size; sleep 60")
		c := m.AttachClient(t)
		pid = c.PID
		if !strings.HasPrefix(c.TTY, "/dev/pts/") {
			t.Fatalf("client tty %q", c.TTY)
		}
		if _, err := m.Run("switch-client", "-c", c.TTY, "-t", pane); err != nil {
			t.Fatal(err)
		}
		WaitUntil(t, 20*time.Second, "the client to show the pane", func() bool {
			got, err := m.Run("display-message", "-p", "-c", c.TTY, "#{pane_id}")
			return err == nil && got == pane
		})
		// The client is the window's size: it keeps its size when seen.
		m.WaitFor(t, pane, "40 120", 5*time.Second)
		if got, _ := m.Run("display-message", "-p", "-t", pane, "#{window_width}x#{window_height}"); got != "120x40" {
			t.Fatalf("window is %s once seen by the client, want 120x40", got)
		}
	})
	if pid == 0 {
		t.Fatal("inner test did not attach")
	}
	if ProcessAlive(pid) {
		t.Fatalf("tmux client %d still running after the test", pid)
	}
}
