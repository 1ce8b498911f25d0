//go:build linux

package testutil

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTmuxRunsFakeAgent(t *testing.T) {
	bin := FakeAgent(t)
	m := NewTmux(t)
	dir := t.TempDir()
	pane := m.NewWindowDir(dir, map[string]string{"WEIRD": `it's "quoted" $HOME`}, bin, "-echo", "-print-size", "-print-cwd", "-print-env")
	pid := m.PanePID(pane)
	m.WaitFor(t, pane, "fakeagent ready pid="+strconv.Itoa(pid), 10*time.Second)
	out := m.CaptureAll(pane)
	for _, want := range []string{"size=120x40", "cwd=" + dir, `env WEIRD=it's "quoted" $HOME`} {
		if !strings.Contains(out, want) {
			t.Errorf("pane lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "env TMUX_PANE=%0") {
		t.Errorf("the test's own tmux leaked into the pane")
	}

	m.SendLiteral(pane, "hello -l world")
	m.SendKeys(pane, "Enter")
	m.WaitFor(t, pane, "got: hello -l world", 5*time.Second)

	m.ResizeWindow(pane, 100, 30)
	m.WaitFor(t, pane, "winch size=100x30", 5*time.Second)

	if m.PaneDead(pane) {
		t.Fatal("pane dead while fakeagent runs")
	}
	m.KillPane(pane)
	WaitUntil(t, 20*time.Second, "fakeagent to die with its pane", func() bool { return !ProcessAlive(pid) })
	if !m.PaneDead(pane) {
		t.Fatal("killed pane not reported dead")
	}
}

func TestTmuxPaneExitStatus(t *testing.T) {
	bin := FakeAgent(t)
	m := NewTmux(t)
	exited := m.NewWindow(nil, bin, "-exit", "3")
	killed := m.NewWindow(nil, bin, "-signal", "SEGV")
	WaitUntil(t, 10*time.Second, "both exit statuses", func() bool {
		_, _, ok1 := m.PaneExitStatus(exited)
		_, _, ok2 := m.PaneExitStatus(killed)
		return ok1 && ok2
	})
	if !m.PaneDead(exited) || !m.PaneDead(killed) {
		t.Fatal("panes with an exit status not reported dead")
	}
	// remain-on-exit keeps the last output readable.
	m.WaitFor(t, exited, "fakeagent ready", time.Second)
	if code, sig, ok := m.PaneExitStatus(exited); !ok || sig || code != 3 {
		t.Errorf("exited pane: code=%d signaled=%v ok=%v, want exit 3", code, sig, ok)
	}
	if code, sig, ok := m.PaneExitStatus(killed); !ok || !sig || code != int(syscall.SIGSEGV) {
		t.Errorf("killed pane: code=%d signaled=%v ok=%v, want signal %d", code, sig, ok, syscall.SIGSEGV)
	}
	if _, _, ok := m.PaneExitStatus("%999"); ok {
		t.Error("status reported for a pane that does not exist")
	}
}

func TestTmuxWaitForCount(t *testing.T) {
	m := NewTmux(t)
	pane := m.NewWindow(nil, "sh", "-c", "echo tick; sleep 0.2; echo tick; sleep 60")
	m.WaitForCount(t, pane, "tick", 2, 5*time.Second)
	if got := m.Capture(pane); got != "tick\ntick" {
		t.Fatalf("Capture = %q", got)
	}
	m.WaitForScreen(t, pane, "tick", time.Second)
}

// TestTmuxCleanup checks that a test's server, the processes in its panes
// and its socket are gone once the test is over.
func TestTmuxCleanup(t *testing.T) {
	bin := FakeAgent(t)
	var server, agent int
	var socket string
	t.Run("inner", func(t *testing.T) {
		m := NewTmux(t)
		server, socket = m.ServerPID, m.SocketPath
		// Ignores SIGTERM; SIGHUP from kill-server still ends it.
		pane := m.NewWindow(nil, bin, "-ignore-term")
		m.WaitFor(t, pane, "fakeagent ready", 10*time.Second)
		agent = m.PanePID(pane)
		if len(m.Panes()) != 2 {
			t.Fatalf("panes: %v", m.Panes())
		}
	})
	if server == 0 || agent == 0 {
		t.Fatal("inner test did not start")
	}
	if ProcessAlive(server) {
		t.Errorf("tmux server %d still running", server)
	}
	if ProcessAlive(agent) {
		t.Errorf("pane process %d still running", agent)
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("socket %s still there: %v", socket, err)
	}
}

func TestShellCommand(t *testing.T) {
	got := ShellCommand(map[string]string{"B": "2", "A": "it's"}, "prog", "a b", "")
	want := `exec env -- 'A=it'\''s' B=2 prog 'a b' ''` // shellquote: bare when safe
	if got != want {
		t.Fatalf("ShellCommand = %s, want %s", got, want)
	}
}
