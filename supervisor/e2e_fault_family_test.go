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
	"github.com/sup-tmux/sup/ipc"
)

// familyScript is an agent that leaves every kind of process a run can
// leave: a background job that ignores SIGHUP (same session), and a
// double-forked daemon (setsid, SIGHUP ignored, parent gone at once) — the
// agent itself ignores SIGHUP too. Each writes its pid to a file.
const familyScript = `trap "" HUP
sleep 1000 & echo $! > job.pid
(setsid sh -c 'echo $$ > daemon.pid; exec sleep 1000' &)
while [ ! -s daemon.pid ]; do sleep 0.01; done
echo family ready
exec fakeagent -starts starts -echo`

// readPID waits for file to hold a pid and returns it.
func (r *rig) readPID(name string) int {
	r.t.Helper()
	var pid int
	testutil.WaitUntil(r.t, 10*time.Second, name+" to hold a pid", func() bool {
		b, _ := os.ReadFile(filepath.Join(r.dir, name)) // Best effort: may not exist yet.
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	return pid
}

// reaped reports whether pid is gone from the process table: dead and not
// a zombie waiting for a parent.
func reaped(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return os.IsNotExist(err)
}

// TestE2EFaultSupKilled: a SIGKILLed sup leaves nothing behind. Its agent
// ignores SIGHUP (so the pty hangup alone would not end it) and has a
// background job and a daemon that ignore it too; all are gone within
// moments, the guard with them, and the next `sup ls` removes the socket.
func TestE2EFaultSupKilled(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--", "sh", "-c", familyScript)
	r.tm.WaitFor(t, pane, "fakeagent ready", 10*time.Second)
	st := r.state("doc")
	job, daemon := r.readPID("job.pid"), r.readPID("daemon.pid")
	guard := r.guardOf(st)
	sock := r.sockets()[0]

	killed := time.Now()
	syscall.Kill(st.SupPID, syscall.SIGKILL)
	left := func() []string {
		var out []string
		for name, pid := range map[string]int{"agent": st.PID, "job": job, "daemon": daemon, "guard": guard} {
			if testutil.ProcessAlive(pid) {
				out = append(out, name+" "+strconv.Itoa(pid))
			}
		}
		for _, p := range testutil.SessionMembers(st.PID) {
			out = append(out, p.String())
		}
		return out
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(left()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("10s after SIGKILL to sup, still alive: %v", left())
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("everything gone %v after SIGKILL to sup", time.Since(killed).Round(time.Millisecond))

	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("a SIGKILLed sup cannot remove its socket, yet it is gone: %v", err)
	}
	if out := r.mustSup("ls"); strings.Contains(out, st.SessionID) {
		t.Fatalf("ls lists the dead session:\n%s", out)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("sup ls left the stale socket %s (%v)", sock, err)
	}
}

// TestE2EFaultDaemonEndsWithRun: restarting or stopping the session ends
// the run's background job and its double-forked daemon (reparented to
// sup, the subreaper) and reaps them: no process and no zombie is left.
func TestE2EFaultDaemonEndsWithRun(t *testing.T) {
	t.Parallel()
	r := newRig(t, "stop_grace: 300ms\n")
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--", "sh", "-c", familyScript)
	r.tm.WaitFor(t, pane, "fakeagent ready", 10*time.Second)
	job, daemon := r.readPID("job.pid"), r.readPID("daemon.pid")
	st := r.state("doc")
	for _, pid := range []int{job, daemon} {
		if !testutil.ProcessAlive(pid) {
			t.Fatalf("process %d of the run is not running", pid)
		}
	}
	os.Remove(filepath.Join(r.dir, "job.pid"))
	os.Remove(filepath.Join(r.dir, "daemon.pid"))

	r.mustSup("restart", "doc")
	testutil.WaitUntil(t, 10*time.Second, "the first run's job and daemon to be gone and reaped", func() bool {
		return reaped(job) && reaped(daemon) && reaped(st.PID)
	})
	job2, daemon2 := r.readPID("job.pid"), r.readPID("daemon.pid")
	r.tm.WaitForCount(t, pane, "fakeagent ready", 2, 10*time.Second)
	st2 := r.state("doc")
	if st2.PID == st.PID || st2.Lifecycle != "running" {
		t.Fatalf("after restart: %+v", st2)
	}

	r.mustSup("stop", "doc")
	testutil.WaitUntil(t, 10*time.Second, "sup, the second run and its job and daemon to be gone", func() bool {
		return !testutil.ProcessAlive(st2.SupPID) && !testutil.ProcessAlive(st2.PID) &&
			!testutil.ProcessAlive(job2) && !testutil.ProcessAlive(daemon2)
	})
}

// guardOf finds the guard of the supervisor st describes: sup's child in
// sup's own session (a shell; the agent and its reparented daemons lead
// sessions of their own).
func (r *rig) guardOf(st ipc.State) int {
	r.t.Helper()
	procs := testutil.Procs()
	sid := 0
	for _, p := range procs {
		if p.PID == st.SupPID {
			sid = p.SID
		}
	}
	for _, p := range procs {
		if p.PPID == st.SupPID && p.PID != st.PID && p.SID == sid {
			return p.PID
		}
	}
	r.t.Fatalf("no guard process under sup %d", st.SupPID)
	return 0
}

// TestE2EFaultDaemonExitReapedStatusKept: a double-forked setsid daemon
// of the agent that exits on its own while the agent runs is reaped by
// sup (the subreaper it was reparented to): no zombie is left; and the
// agent's own exit status, which sup's reaping of orphans must not steal,
// still classifies right when the agent exits after it.
func TestE2EFaultDaemonExitReapedStatusKept(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	script := `(setsid sh -c 'echo $$ > daemon.pid; sleep 0.3; exit 7' &); echo started; until [ -e end ]; do sleep 0.05; done; exit 3`
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--", "sh", "-c", script)
	r.tm.WaitFor(t, pane, "started", 10*time.Second)
	daemon := r.readPID("daemon.pid")
	st := r.state("doc")
	testutil.WaitUntil(t, 10*time.Second, "the daemon to exit and be reaped (no zombie)", func() bool { return reaped(daemon) })
	if st2 := r.state("doc"); st2.LastExit != nil || st2.PID != st.PID || st2.Lifecycle != "running" {
		t.Fatalf("after the daemon's exit, the agent's run changed: %+v", st2)
	}
	r.write("end", "")
	testutil.WaitUntil(t, 10*time.Second, "the agent's exit in state", func() bool { return r.state("doc").LastExit != nil })
	if le := r.state("doc").LastExit; le.Code != 3 || le.Signal != "" {
		t.Fatalf("last_exit %+v, want code 3 (the agent's own status)", le)
	}
}
