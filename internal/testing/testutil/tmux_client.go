//go:build linux

package testutil

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/sup-tmux/sup/internal/tmux"
)

// Client is a real tmux client attached to a [Tmux] server through a pty
// of its own, as a person's terminal would be. Tests need one for what
// only an attached client has: switch-client, client-tty, a window seen.
type Client struct {
	// TTY is the client's terminal (the pty's slave, "/dev/pts/N"), the
	// name switch-client -c and list-clients use.
	TTY string
	// PID is the tmux client process.
	PID int

	ptmx *os.File
	out  *Buffer // everything the client drew on its terminal
}

// Output is everything the client has drawn on its terminal so far (raw:
// escape sequences included), e.g. to see a display-message it showed.
func (c *Client) Output() string { return c.out.String() }

// Type writes keys into the client's terminal, as a person typing would:
// "\x02\t" is prefix (C-b) then Tab, which runs the client's key bindings.
func (c *Client) Type(t testing.TB, keys string) {
	t.Helper()
	if _, err := c.ptmx.WriteString(keys); err != nil {
		t.Fatalf("type into the tmux client: %v", err)
	}
}

// AttachClient attaches a tmux client to session "main", sized
// DefaultCols x DefaultRows so the windows it shows keep their size (an
// attached client imposes its size on the windows it views). It waits
// until the server lists the client. The cleanup kills the client before
// the server goes.
func (m *Tmux) AttachClient(t testing.TB) *Client {
	t.Helper()
	cmd := exec.Command("tmux", "-L", m.Name, "attach-session", "-t", "main")
	// tmux refuses to attach from inside tmux, and needs a terminal type.
	cmd.Env = append(tmux.WithoutTmuxEnv(os.Environ()), "TERM=xterm-256color")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: DefaultCols, Rows: DefaultRows})
	if err != nil {
		t.Fatalf("attach tmux client: %v", err)
	}
	// The client draws the screen into the pty: read it, or it blocks
	// once the pty's buffer is full.
	drained := make(chan struct{})
	out := &Buffer{}
	go func() {
		_, _ = io.Copy(out, ptmx) // Ends with EIO when the client exits.
		close(drained)
	}()
	c := &Client{PID: cmd.Process.Pid, ptmx: ptmx, out: out}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptmx.Close()
		<-drained
	})
	WaitUntil(t, 10*time.Second, "the tmux client to attach", func() bool {
		out, err := m.Run("list-clients", "-F", "#{client_pid} #{client_tty}")
		if err != nil {
			return false
		}
		for _, line := range strings.Split(out, "\n") {
			if pid, tty, ok := strings.Cut(line, " "); ok && pid == strconv.Itoa(c.PID) {
				c.TTY = tty
				return true
			}
		}
		return false
	})
	return c
}

// ClientPane returns the pane client c shows now.
func (m *Tmux) ClientPane(t testing.TB, c *Client) string {
	t.Helper()
	// list-clients, not display-message -c: the latter evaluates the
	// format for tmux's "current" pane, whichever client that is.
	out, err := m.Run("list-clients", "-F", "#{client_tty} #{pane_id}")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if tty, pane, ok := strings.Cut(line, " "); ok && tty == c.TTY {
			return pane
		}
	}
	t.Fatalf("client %s is not attached: %q", c.TTY, out)
	return ""
}
