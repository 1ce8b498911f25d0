//go:build linux

package supervisor_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// rig is one end-to-end setup: a private tmux server, built binaries, and
// private config, state and runtime directories for the supervisors it runs.
type rig struct {
	*testutil.Rig // the shared rig; the fields below name its parts
	t             testing.TB
	tm            *testutil.Tmux
	bins          testutil.Bins
	dir           string // the test's scratch dir: documents, pid files
	env           map[string]string
}

// newRig is testutil's end-to-end rig with one document, doc.md.
func newRig(t testing.TB, configYAML string) *rig {
	t.Helper()
	w := testutil.NewRig(t, configYAML)
	r := &rig{Rig: w, t: t, tm: w.Tmux, bins: w.Bins, dir: w.Dir, env: w.Env}
	r.write("doc.md", "# a session document\n")
	return r
}

func (r *rig) write(rel, content string) string { return r.Write(rel, content) }

// start runs `sup start doc.md -- fakeagent ARGS...` in a new pane and waits
// for the agent to be ready.
func (r *rig) start(fakeArgs ...string) string {
	r.t.Helper()
	return r.Start("doc", fakeArgs...)
}

// starts reads the pids a `-starts FILE` fakeagent recorded, in order.
func (r *rig) starts(file string) []int {
	data, _ := os.ReadFile(file) // Best effort: absent until the first start.
	var pids []int
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if p, ok := strings.CutPrefix(line, "start pid="); ok {
			if n, err := strconv.Atoi(p); err == nil {
				pids = append(pids, n)
			}
		}
	}
	return pids
}

func (r *rig) waitStarts(file string, n int) []int {
	r.t.Helper()
	testutil.WaitUntil(r.t, 15*time.Second, "fakeagent start number "+strconv.Itoa(n), func() bool { return len(r.starts(file)) >= n })
	return r.starts(file)
}

func TestE2EKeystrokesReachChild(t *testing.T) {
	r := newRig(t, "")
	pane := r.start("-echo")
	r.tm.SendLiteral(pane, "hello sup")
	r.tm.SendKeys(pane, "Enter")
	r.tm.WaitFor(t, pane, "got: hello sup", 5*time.Second)
}

func TestE2ECtrlCReachesChild(t *testing.T) {
	r := newRig(t, "")
	pane := r.start("-echo")
	r.tm.SendKeys(pane, "C-c")
	r.tm.WaitFor(t, pane, "fakeagent got SIGINT", 5*time.Second)
	// The child's SIGINT is a failure exit (130): sup restarts it.
	r.tm.WaitFor(t, pane, "restarting in", 5*time.Second)
}

func TestE2EResizeReachesChild(t *testing.T) {
	r := newRig(t, "")
	pane := r.start("-print-size")
	r.tm.WaitFor(t, pane, "size=120x40", 5*time.Second)
	r.tm.ResizeWindow(pane, 100, 30)
	r.tm.WaitFor(t, pane, "winch size=100x30", 5*time.Second)
}

func TestE2EKilledChildRestarts(t *testing.T) {
	r := newRig(t, "crash: {transient_delay: 100ms}\n")
	starts := filepath.Join(r.dir, "starts")
	pane := r.start("-starts", starts)
	first := r.waitStarts(starts, 1)[0]
	syscall.Kill(first, syscall.SIGKILL)
	pids := r.waitStarts(starts, 2)
	if pids[1] == first {
		t.Fatalf("restarted child has the old pid %d", first)
	}
	r.tm.WaitForCount(t, pane, "fakeagent ready", 2, 5*time.Second)
}

func TestE2EFiveFastFailuresHalt(t *testing.T) {
	r := newRig(t, "crash: {transient_delay: 20ms, flapping_delay: 20ms}\n")
	starts := filepath.Join(r.dir, "starts")
	argv := []string{r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--", "fakeagent", "-starts", starts, "-exit", "3"}
	pane := r.tm.NewWindowDir(r.dir, r.env, argv...)
	r.tm.WaitFor(t, pane, "halted after 5 failures — r to retry, q to quit", 15*time.Second)
	time.Sleep(300 * time.Millisecond) // halted must stay halted: no sixth start
	if n := len(r.starts(starts)); n != 5 {
		t.Fatalf("starts before halt = %d, want 5", n)
	}
	r.tm.SendLiteral(pane, "r")
	r.waitStarts(starts, 6)
	r.tm.WaitForCount(t, pane, "halted after", 2, 15*time.Second)
	r.tm.SendLiteral(pane, "q")
	var code int
	testutil.WaitUntil(t, 20*time.Second, "pane to end with a known status", func() bool {
		var ok bool
		code, _, ok = r.tm.PaneExitStatus(pane)
		return ok
	})
	if code != 3 {
		t.Fatalf("sup exit status = %d, want the child's 3", code)
	}
}

// TestE2ETerminalRestored compares stty -a before and after sup: after a
// clean exit and q, and after a crash followed by SIGTERM to sup.
func TestE2ETerminalRestored(t *testing.T) {
	r := newRig(t, "crash: {transient_delay: 30s}\n")
	sup := r.bins.Sup + " start " + filepath.Join(r.dir, "doc.md") + " -- fakeagent"
	script := "stty -a > before; " +
		sup + " -exit 0 -after 100ms; stty -a > after1; " +
		sup + " -starts starts -signal SEGV -after 300ms; stty -a > after2; echo ALL-DONE"
	pane := r.tm.NewWindowDir(r.dir, r.env, "sh", "-c", script)
	r.tm.WaitFor(t, pane, "Enter to restart, q to quit", 10*time.Second)
	r.tm.SendLiteral(pane, "q")
	r.waitStarts(filepath.Join(r.dir, "starts"), 1)
	r.tm.WaitFor(t, pane, "restarting in", 10*time.Second)
	shell := r.tm.PanePID(pane)
	var supPID int
	for _, p := range testutil.Procs() {
		if p.PPID == shell && p.Comm == "sup" {
			supPID = p.PID
		}
	}
	if supPID == 0 {
		t.Fatal("no sup process under the pane's shell")
	}
	syscall.Kill(supPID, syscall.SIGTERM)
	r.tm.WaitFor(t, pane, "ALL-DONE", 20*time.Second)
	before, _ := os.ReadFile(filepath.Join(r.dir, "before"))
	for _, f := range []string{"after1", "after2"} {
		after, _ := os.ReadFile(filepath.Join(r.dir, f))
		if len(before) == 0 || string(before) != string(after) {
			t.Fatalf("terminal not restored (%s):\nbefore:\n%s\nafter:\n%s", f, before, after)
		}
	}
}

// TestE2EKillPaneLeavesNoChild: the child ignores SIGTERM, so this also
// proves the SIGKILL after stop_grace.
func TestE2EKillPaneLeavesNoChild(t *testing.T) {
	r := newRig(t, "stop_grace: 300ms\n")
	starts := filepath.Join(r.dir, "starts")
	pane := r.start("-starts", starts, "-ignore-term", "-ignore-hup")
	child := r.waitStarts(starts, 1)[0]
	supPID := r.tm.PanePID(pane)
	r.tm.KillPane(pane)
	testutil.WaitUntil(t, 10*time.Second, "sup and the child's group to be gone", func() bool {
		return !testutil.ProcessAlive(supPID) && !testutil.GroupAlive(child) && len(testutil.SessionMembers(child)) == 0
	})
}
