//go:build linux

package supervisor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EFaultKilledFiveTimesHalts: a child SIGKILLed five times in quick
// succession is classified transient, transient, then flapping, and sup
// halts after the fifth; the halt survives a run that exits cleanly (sup
// says halted again, not "Enter to restart"), and
// `sup resume` restarts the child with health back to healthy.
func TestE2EFaultKilledFiveTimesHalts(t *testing.T) {
	t.Parallel()
	r := newRig(t, "crash: {transient_delay: 20ms, flapping_delay: 20ms}\n")
	starts := filepath.Join(r.dir, "starts")
	clean := filepath.Join(r.dir, "clean")
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--",
		"sh", "-c", `if [ -e clean ]; then echo exiting cleanly; exit 0; fi; exec fakeagent -starts starts`)
	for i := 1; i <= 5; i++ {
		pid := r.waitStarts(starts, i)[i-1]
		syscall.Kill(pid, syscall.SIGKILL)
	}
	r.tm.WaitFor(t, pane, "halted after 5 failures", 15*time.Second)

	var h ipc.HistoryResult
	if err := json.Unmarshal([]byte(r.mustSup("history", "--json", "doc")), &h); err != nil {
		t.Fatal(err)
	}
	want := []string{"transient", "transient", "flapping", "flapping", "flapping"}
	if h.Health != "halted" || len(h.Exits) != len(want) {
		t.Fatalf("history = %+v, want 5 exits and health halted", h)
	}
	for i, e := range h.Exits {
		if e.Class != want[i] || e.Signal != "SIGKILL" || e.Code != 128+int(syscall.SIGKILL) {
			t.Fatalf("exit %d = %+v, want class %s by SIGKILL (code 137)", i+1, e, want[i])
		}
	}
	time.Sleep(200 * time.Millisecond) // halted stays halted: no sixth start
	if n := len(r.starts(starts)); n != 5 {
		t.Fatalf("%d starts while halted, want 5", n)
	}

	// A run that exits cleanly does not clear the halt.
	if err := os.WriteFile(clean, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r.mustSup("restart", "doc")
	r.tm.WaitFor(t, pane, "exiting cleanly", 10*time.Second)
	r.tm.WaitForCount(t, pane, "halted after 5 failures", 2, 10*time.Second)
	if st := r.state("doc"); st.Health != "halted" || st.Lifecycle != "halted" || st.LastExit == nil || st.LastExit.Class != "clean" {
		t.Fatalf("after a clean exit while halted: %+v, want health and lifecycle halted, last exit clean", st)
	}

	// sup resume clears it and runs the child again.
	os.Remove(clean)
	r.mustSup("resume", "doc")
	pids := r.waitStarts(starts, 6)
	st := r.state("doc")
	if st.Health != "healthy" || st.Lifecycle != "running" || st.PID != pids[5] {
		t.Fatalf("after resume: health %q lifecycle %q pid %d, want healthy running %d", st.Health, st.Lifecycle, st.PID, pids[5])
	}
	if !testutil.ProcessAlive(st.PID) {
		t.Fatalf("resumed child %d is not running", st.PID)
	}
}
