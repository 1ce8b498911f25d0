//go:build linux

package testutil

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/internal/tmux"
)

// Tmux is a private tmux server, reached with "tmux -L <Name>", that exists
// for one test. It has one session, "main", whose first window runs sleep
// so that the server stays up however many test windows come and go.
//
// Global options: status off (so a window's size is its pane's size),
// remain-on-exit on (so a pane's last output and exit status can be read
// after its process ends), default-shell /bin/sh.
type Tmux struct {
	// Name is the socket name given to tmux -L; it is unique to this
	// process and test.
	Name string
	// SocketPath is the server's socket file.
	SocketPath string
	// ServerPID is the tmux server's pid.
	ServerPID int

	t testing.TB
}

// DefaultCols and DefaultRows are the size of the windows [Tmux.NewWindow]
// creates.
const (
	DefaultCols = 120
	DefaultRows = 40
)

// tmuxTimeout bounds every tmux command, so that a wedged server fails the
// test instead of hanging it.
const tmuxTimeout = 10 * time.Second

var tmuxCounter atomic.Int64

// NewTmux starts a private tmux server and registers a cleanup that kills
// it, kills whatever is left of the processes in its panes, and removes its
// socket. If the test has failed by then, the cleanup first logs what every
// pane showed. Without tmux installed the test fails: tests that need tmux
// must not pass by skipping.
func NewTmux(t testing.TB) *Tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux not installed: run .ci/run or apt-get install -y tmux")
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	m := &Tmux{
		Name: fmt.Sprintf("sup-test-%d-%d-%s", os.Getpid(), tmuxCounter.Add(1), hex.EncodeToString(rnd[:])),
		t:    t,
	}
	// Server's Config (/dev/null) keeps the user's config out. Options are set before the
	// session exists, so its windows are never resized after creation (a
	// resize can push a pane's first lines into history).
	out, err := m.Run("start-server", ";",
		"set-option", "-g", "status", "off", ";",
		"set-option", "-g", "remain-on-exit", "on", ";",
		"set-option", "-g", "default-shell", "/bin/sh", ";",
		"new-session", "-d", "-s", "main", "-x", strconv.Itoa(DefaultCols), "-y", strconv.Itoa(DefaultRows), "sleep 86400", ";",
		"display-message", "-p", "#{pid} #{socket_path}")
	// Register cleanup even on error: the server may be half up.
	t.Cleanup(m.cleanup)
	if err != nil {
		t.Fatalf("starting tmux: %v", err)
	}
	pidStr, path, _ := strings.Cut(out, " ")
	if m.ServerPID, err = strconv.Atoi(pidStr); err != nil || path == "" {
		t.Fatalf("starting tmux: unexpected reply %q", out)
	}
	m.SocketPath = path
	return m
}

// Server is the test's tmux server for package tmux: the user's config
// kept out, and the test's own $TMUX too (-L already decides, but the
// server copies its starting environment into panes).
func (m *Tmux) Server() tmux.Server {
	return tmux.Server{Name: m.Name, Config: os.DevNull, Env: tmux.WithoutTmuxEnv(os.Environ()), Timeout: tmuxTimeout}
}

// Run runs "tmux -L <Name> args..." and returns its output without the
// final newline. The error includes tmux's stderr. Every word is the
// test's own (tmux.Authored): a test that shows session data in tmux goes
// through sup's code, which escapes it.
func (m *Tmux) Run(args ...string) (string, error) {
	return m.Server().Exec(context.Background(), tmux.Authored(args...))
}

// must runs a tmux command and fails the test if it fails.
func (m *Tmux) must(args ...string) string {
	m.t.Helper()
	out, err := m.Run(args...)
	if err != nil {
		m.t.Fatal(err)
	}
	return out
}

// NewWindow runs argv in a new background window of session "main", with
// env added to the environment, and returns the new pane's id ("%3").
// The window starts in the test's working directory.
func (m *Tmux) NewWindow(env map[string]string, argv ...string) string {
	m.t.Helper()
	return m.NewWindowDir("", env, argv...)
}

// NewWindowDir is [Tmux.NewWindow] starting in dir ("" for the test's
// working directory).
func (m *Tmux) NewWindowDir(dir string, env map[string]string, argv ...string) string {
	m.t.Helper()
	if len(argv) == 0 {
		m.t.Fatal("NewWindow: no command")
	}
	return m.must(newWindowArgs(dir, env, argv)...)
}

func newWindowArgs(dir string, env map[string]string, argv []string) []string {
	args := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:"}
	if dir != "" {
		args = append(args, "-c", dir)
	}
	return append(args, ShellCommand(env, argv...))
}

// NewWindowSize is [Tmux.NewWindowDir] with a window of cols x rows from
// the start, so the program never sees another size. While no client is
// attached tmux sizes new windows by the session's default-size; it is set
// for this one window and put back in the same command (putting it back
// leaves the new window alone). An attached client imposes its own size.
func (m *Tmux) NewWindowSize(dir string, cols, rows int, env map[string]string, argv ...string) string {
	m.t.Helper()
	if len(argv) == 0 {
		m.t.Fatal("NewWindowSize: no command")
	}
	setSize := func(c, r int) []string {
		return []string{"set-option", "-t", "main", "default-size", fmt.Sprintf("%dx%d", c, r)}
	}
	args := append(setSize(cols, rows), ";")
	args = append(args, newWindowArgs(dir, env, argv)...)
	args = append(args, ";")
	return m.must(append(args, setSize(DefaultCols, DefaultRows)...)...)
}

// ShellCommand returns a /bin/sh command line that runs argv with env
// added, quoting every word. exec keeps the shell from staying around as
// the pane's process, so the pane's pid is argv's.
func ShellCommand(env map[string]string, argv ...string) string {
	words := []string{"exec", "env", "--"}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		words = append(words, shellquote.Quote(k+"="+env[k]))
	}
	for _, a := range argv {
		words = append(words, shellquote.Quote(a))
	}
	return strings.Join(words, " ")
}

// SendKeys sends keys to pane as tmux key names ("Enter", "C-c", "q").
func (m *Tmux) SendKeys(pane string, keys ...string) {
	m.t.Helper()
	m.must(append([]string{"send-keys", "-t", pane}, keys...)...)
}

// SendLiteral types text into pane character by character, with no key
// name lookup.
func (m *Tmux) SendLiteral(pane, text string) {
	m.t.Helper()
	m.must("send-keys", "-t", pane, "-l", "--", text)
}

// Capture returns the visible screen of pane, wrapped lines joined and
// trailing blank lines dropped.
//
// When a pane's process exits, tmux scrolls the screen by a line to print
// "Pane is dead", so what was on the first line is then only in
// [Tmux.CaptureAll].
func (m *Tmux) Capture(pane string) string {
	m.t.Helper()
	out, err := m.capture(pane, false)
	if err != nil {
		m.t.Fatal(err)
	}
	return out
}

// CaptureAll returns pane's scrollback history followed by its visible
// screen, like [Tmux.Capture].
func (m *Tmux) CaptureAll(pane string) string {
	m.t.Helper()
	out, err := m.capture(pane, true)
	if err != nil {
		m.t.Fatal(err)
	}
	return out
}

func (m *Tmux) capture(pane string, history bool) (string, error) {
	args := []string{"capture-pane", "-p", "-J", "-t", pane}
	if history {
		args = append(args, "-S", "-")
	}
	out, err := m.Run(args...)
	return strings.TrimRight(out, "\n"), err
}

// WaitFor waits until substr appears in pane's history or screen and
// returns that capture; after timeout (at least MinWait) it fails the
// test, showing the last capture. History is searched too because output
// a test waits for may already have scrolled off; to wait for a later
// occurrence of a line seen before, use [Tmux.WaitForCount].
func (m *Tmux) WaitFor(t testing.TB, pane, substr string, timeout time.Duration) string {
	t.Helper()
	return m.waitCapture(t, pane, true, timeout, fmt.Sprintf("%q", substr), func(s string) bool {
		return strings.Contains(s, substr)
	})
}

// WaitForCount waits until substr appears at least n times in pane's
// history and screen, as [Tmux.WaitFor] does for once.
func (m *Tmux) WaitForCount(t testing.TB, pane, substr string, n int, timeout time.Duration) string {
	t.Helper()
	return m.waitCapture(t, pane, true, timeout, fmt.Sprintf("%d × %q", n, substr), func(s string) bool {
		return strings.Count(s, substr) >= n
	})
}

// WaitForScreen waits until substr is on pane's visible screen, as
// [Tmux.WaitFor] does for history and screen.
func (m *Tmux) WaitForScreen(t testing.TB, pane, substr string, timeout time.Duration) string {
	t.Helper()
	return m.waitCapture(t, pane, false, timeout, fmt.Sprintf("%q on screen", substr), func(s string) bool {
		return strings.Contains(s, substr)
	})
}

// WaitScreenFunc waits up to timeout until ok holds for the pane's visible
// screen and returns it, looking as the other tmux waits do (slower once
// the wait is long); what names the wait in the failure.
func (m *Tmux) WaitScreenFunc(t testing.TB, pane string, timeout time.Duration, what string, ok func(string) bool) string {
	t.Helper()
	return m.waitCapture(t, pane, false, timeout, what, ok)
}

func (m *Tmux) waitCapture(t testing.TB, pane string, history bool, timeout time.Duration, what string, ok func(string) bool) string {
	t.Helper()
	timeout = atLeastMinWait(timeout)
	deadline := time.Now().Add(timeout)
	pace := backoff{screen: true}
	for {
		out, err := m.capture(pane, history)
		if err == nil && ok(out) {
			return out
		}
		if time.Now().After(deadline) {
			if err != nil {
				t.Fatalf("pane %s: timed out after %v waiting for %s; last capture failed: %v", pane, timeout, what, err)
			}
			t.Fatalf("pane %s: timed out after %v waiting for %s; last capture:\n%s", pane, timeout, what, out)
		}
		pace.sleep()
	}
}

// PanePID returns the pid of the process tmux started in pane.
func (m *Tmux) PanePID(pane string) int {
	m.t.Helper()
	out := m.must("display-message", "-p", "-t", pane, "#{pane_pid}")
	pid, err := strconv.Atoi(out)
	if err != nil {
		m.t.Fatalf("pane %s: pane_pid %q: %v", pane, out, err)
	}
	return pid
}

// ResizeWindow sets the size of pane's window, and so of pane, to cols x
// rows. The kernel then sends SIGWINCH to the pane's foreground process.
func (m *Tmux) ResizeWindow(pane string, cols, rows int) {
	m.t.Helper()
	m.must("resize-window", "-t", pane, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
}

// KillPane closes pane; tmux hangs up its pty, so the processes using it
// get SIGHUP.
func (m *Tmux) KillPane(pane string) {
	m.t.Helper()
	m.must("kill-pane", "-t", pane)
}

// PaneDead reports whether pane's process has exited, or the pane is gone
// altogether.
func (m *Tmux) PaneDead(pane string) bool {
	m.t.Helper()
	p, ok := m.pane(pane)
	return !ok || p.dead
}

// PaneExitStatus returns how pane's process ended: its exit code, or the
// number of the signal that killed it with signaled set. ok is false while
// the process runs, or if the pane is gone; wait for it with [WaitUntil].
func (m *Tmux) PaneExitStatus(pane string) (code int, signaled, ok bool) {
	m.t.Helper()
	p, found := m.pane(pane)
	if found && p.dead && !p.statusKnown() {
		// tmux 3.3 sometimes misses the SIGCHLD of a pane that exits
		// while it is busy creating other panes, and then leaves the
		// zombie unreaped until some other child of the server exits.
		// Give it one: its SIGCHLD handler reaps every zombie.
		_, _ = m.Run("run-shell", "true")
		p, found = m.pane(pane)
	}
	if !found || !p.statusKnown() {
		return 0, false, false
	}
	if p.signal != "" {
		n, _ := strconv.Atoi(p.signal)
		return n, true, true
	}
	n, _ := strconv.Atoi(p.status)
	return n, false, true
}

type paneInfo struct {
	dead           bool
	status, signal string
}

func (p paneInfo) statusKnown() bool { return p.status != "" || p.signal != "" }

// pane looks pane up in list-panes: unlike display-message, which prints
// an empty string for a pane that does not exist, that tells "gone" apart.
func (m *Tmux) pane(pane string) (paneInfo, bool) {
	m.t.Helper()
	out := m.must("list-panes", "-a", "-F", "#{pane_id} #{pane_pid} #{pane_dead} #{pane_dead_status} #{pane_dead_signal}")
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, " ")
		if len(f) != 5 || f[0] != pane {
			continue
		}
		p := paneInfo{status: f[3], signal: f[4]}
		// tmux's own pane_dead means "pty closed", which comes late if a
		// leftover process holds the pty, or early, before tmux reaped
		// the process; so look at the process too.
		pid, err := strconv.Atoi(f[1])
		p.dead = f[2] == "1" || p.statusKnown() || err != nil || !ProcessAlive(pid)
		return p, true
	}
	return paneInfo{}, false
}

// Panes returns the ids of all panes, the session's sleep pane included.
func (m *Tmux) Panes() []string {
	m.t.Helper()
	return strings.Fields(m.must("list-panes", "-a", "-F", "#{pane_id}"))
}

// cleanup tears the server down. It must not call t.Fatal: it runs after
// the test, and must finish its work even if a step fails.
func (m *Tmux) cleanup() {
	out, err := m.Run("list-panes", "-a", "-F", "#{pane_id} #{pane_pid}")
	var panePIDs []int
	if err == nil {
		for _, line := range strings.Split(out, "\n") {
			id, pidStr, _ := strings.Cut(line, " ")
			if pid, err := strconv.Atoi(pidStr); err == nil && pid > 0 {
				panePIDs = append(panePIDs, pid)
			}
			if m.t.Failed() && id != "" {
				if c, err := m.capture(id, true); err == nil {
					m.t.Logf("tmux pane %s at cleanup:\n%s", id, lastLines(c, 60))
				}
			}
		}
	}
	if _, err := m.Run("kill-server"); err != nil && m.ServerPID != 0 && ProcessAlive(m.ServerPID) {
		m.t.Logf("tmux kill-server: %v", err)
	}
	// kill-server hangs up every pane; give their processes a moment to
	// go, then kill what stayed. Each pane's process leads its own session
	// (tmux calls setsid), so the session catches what it started, and
	// nothing of anyone else's.
	sessions := map[int]bool{}
	for _, pid := range panePIDs {
		sessions[pid] = true
	}
	left := WaitProcsGone(time.Now().Add(2*time.Second), func() []Proc {
		left := matching(func(p Proc) bool { return sessions[p.SID] })
		if p, err := readProc(m.ServerPID); m.ServerPID > 0 && err == nil && !p.dead() {
			left = append(left, p)
		}
		return left
	})
	for _, p := range left {
		m.t.Logf("tmux cleanup: killing leftover process %v", p)
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
	}
	path := m.SocketPath
	if path == "" {
		path = TmuxSocketPath(m.Name)
	}
	_ = os.Remove(path)
}

// TmuxSocketPath is where tmux puts the socket for -L name: a server that
// failed before it could tell us, or one a test made through a program
// (sup demo), whose socket file its kill-server leaves behind.
func TmuxSocketPath(name string) string {
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	return filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), name)
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
