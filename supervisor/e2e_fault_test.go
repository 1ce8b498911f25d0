//go:build linux

package supervisor_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EInjectIntoStalledChild: a child that stopped reading its input
// cannot wedge sup: inject fails with ACK_TIMEOUT, and stop still works.
func TestE2EInjectIntoStalledChild(t *testing.T) {
	t.Parallel()
	r := newRig(t, "stop_grace: 300ms\n")
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--",
		"sh", "-c", "stty raw -echo; echo stalled; exec sleep 1000")
	r.tm.WaitFor(t, pane, "stalled", 10*time.Second)
	st := r.state("doc")
	c, err := ipc.Dial(r.sockets()[0], time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	big := strings.Repeat("x", 256<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = c.Call(ctx, ipc.MethodInject, ipc.InjectParams{Text: &big}, nil)
	var perr *ipc.Error
	if !errors.As(err, &perr) || perr.Code != ipc.CodeAckTimeout {
		t.Fatalf("inject into a stalled child: %v, want ACK_TIMEOUT", err)
	}
	r.state("doc") // still answering
	r.mustSup("stop", "doc")
	testutil.WaitUntil(t, 20*time.Second, "sup to exit", func() bool { return !testutil.ProcessAlive(st.SupPID) })
}

// TestE2EStdoutPipeClosed: a reader that goes away (sup … | head) must not
// kill sup with SIGPIPE: it keeps supervising and cleans up normally.
func TestE2EStdoutPipeClosed(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	cmd := exec.Command(r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--", "fakeagent", "-flood", "4000000")
	cmd.Dir = r.dir
	cmd.Env = r.environ()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	io.ReadFull(out, make([]byte, 100)) // Best effort: then hang up, as head does.
	out.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("sup after its reader left: %v (want a clean exit with the child's status)", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("sup did not finish after its stdout reader left")
	}
	if s := r.sockets(); len(s) != 0 {
		t.Fatalf("socket left behind: %v", s)
	}
}

// TestE2ELeftoversEnded: a background job that ignores SIGHUP does not
// outlive the run that started it.
func TestE2ELeftoversEnded(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	pidFile := filepath.Join(r.dir, "leftover.pid")
	cmd := exec.Command(r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--", "sh", "-c",
		`sh -c 'trap "" HUP; echo $$ > leftover.pid; exec sleep 1000' & while [ ! -s leftover.pid ]; do sleep 0.01; done; exit 0`)
	cmd.Dir = r.dir
	cmd.Env = r.environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sup: %v\n%s", err, out)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid == 0 {
		t.Fatalf("bad pid file %q", data)
	}
	testutil.WaitUntil(t, 20*time.Second, "the HUP-ignoring leftover to be gone", func() bool { return !testutil.ProcessAlive(pid) })
}

// TestE2EResumeClearsHaltWhileRunning: a restart while halted keeps the
// halt; resume clears it even though the child is running.
func TestE2EResumeClearsHaltWhileRunning(t *testing.T) {
	t.Parallel()
	r := newRig(t, "crash: {transient_delay: 10ms, flapping_delay: 10ms, halt_after: 2}\n")
	flag := filepath.Join(r.dir, "crash")
	os.WriteFile(flag, nil, 0o644)
	// Crashes while the flag file exists, then stays up.
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--",
		"sh", "-c", `if [ -e crash ]; then exit 5; fi; echo steady; exec sleep 1000`)
	r.tm.WaitFor(t, pane, "halted after 2 failures", 10*time.Second)
	os.Remove(flag)
	r.mustSup("restart", "doc")
	r.tm.WaitFor(t, pane, "steady", 5*time.Second)
	if h := r.state("doc").Health; h != "halted" {
		t.Fatalf("after restart while halted: health %q, want halted (sticky)", h)
	}
	r.mustSup("resume", "doc")
	if st := r.state("doc"); st.Health != "healthy" || st.Lifecycle != "running" {
		t.Fatalf("after resume: health %q lifecycle %q, want healthy running", st.Health, st.Lifecycle)
	}
}
