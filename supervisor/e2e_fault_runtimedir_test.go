//go:build linux

package supervisor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestE2EFaultRuntimeDirDeleted: deleting the runtime dir under two running
// supervisors (rm -rf), then one socket file alone, leaves the agents
// untouched, and each supervisor recreates the dir (0700) and its socket
// at once; `sup state` and `inject` work again through them. Deleting the
// queue and state dirs, or putting symlinks in their place, loses no
// session's files for longer than the fault lasts.
func TestE2EFaultRuntimeDirDeleted(t *testing.T) {
	// Not parallel: the sockets come back on the supervisors' periodic
	// look within its deadline, which tests beside it stretched.
	r := newRig(t, "")
	r.write("b.md", "# another document\n")
	paneA := r.start("-echo")
	paneB := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "b.md"), "--", "fakeagent", "-echo")
	r.tm.WaitFor(t, paneB, "fakeagent ready", 10*time.Second)
	a, b := r.state("doc"), r.state("b")
	rt := r.env["SUP_RUNTIME_DIR"]
	sockA := filepath.Join(rt, a.SessionID+".sock")
	sockB := filepath.Join(rt, b.SessionID+".sock")

	back := func(what string, socks ...string) {
		t.Helper()
		testutil.WaitUntil(t, 10*time.Second, what+": the sockets to be back", func() bool {
			for _, s := range socks {
				if fi, err := os.Stat(s); err != nil || fi.Mode()&os.ModeSocket == 0 {
					return false
				}
			}
			return true
		})
		if fi, err := os.Stat(rt); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: runtime dir %v (%v), want mode 0700", what, fi.Mode(), err)
		}
		for _, want := range []struct {
			name string
			pid  int
		}{{"doc", a.PID}, {"b", b.PID}} {
			st := r.state(want.name)
			if st.PID != want.pid || st.Lifecycle != "running" || st.RestartCount != 0 {
				t.Fatalf("%s: %s has child %d (%s, %d restarts), want the same child %d running", what, want.name, st.PID, st.Lifecycle, st.RestartCount, want.pid)
			}
		}
	}

	testutil.RemoveLiveDir(t, rt)
	back("dir deleted", sockA, sockB)
	r.mustSup("inject", "doc", "after the dir came back")
	r.tm.WaitFor(t, paneA, "got: after the dir came back", 5*time.Second)

	if err := os.Remove(sockB); err != nil {
		t.Fatal(err)
	}
	back("socket deleted", sockA, sockB)
	r.mustSup("inject", "b", "after the socket came back")
	r.tm.WaitFor(t, paneB, "got: after the socket came back", 5*time.Second)

	// The session files' dirs alone: deleted, or moved away with a
	// symlink in their place that the supervisors refuse to write
	// through. Each file comes back with no change in the session (the
	// status line would otherwise miss an idle session until its next
	// change): at once after a delete, within the retry once the symlink
	// is gone.
	files := []string{paths.QueueFile(rt, a.SessionID), paths.QueueFile(rt, b.SessionID),
		paths.StateFile(rt, a.SessionID), paths.StateFile(rt, b.SessionID)}
	filesBack := func(what string) {
		t.Helper()
		testutil.WaitUntil(t, 5*time.Second, what+": the queue and state files to be back", func() bool {
			for _, f := range files {
				if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() {
					return false
				}
			}
			return true
		})
	}
	filesBack("before")
	for _, d := range []string{paths.QueueDir(rt), paths.StateFileDir(rt)} {
		testutil.RemoveLiveDir(t, d)
	}
	filesBack("dirs deleted")
	elsewhere := t.TempDir()
	for _, d := range []string{paths.QueueDir(rt), paths.StateFileDir(rt)} {
		if err := os.Rename(d, d+".old"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, d); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond) // the watch's settle and a retry or two, refused
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Fatalf("a supervisor wrote through the symlinked dir: %v", ents)
	}
	for _, d := range []string{paths.QueueDir(rt), paths.StateFileDir(rt)} {
		if err := os.Remove(d); err != nil { // what sup doctor --fix does
			t.Fatal(err)
		}
	}
	filesBack("symlinks removed")

	logA, _ := os.ReadFile(filepath.Join(r.dir, "state", "sup", a.SessionID+".log"))
	logB, _ := os.ReadFile(filepath.Join(r.dir, "state", "sup", b.SessionID+".log"))
	if !strings.Contains(string(logA), "msg=runtime_dir_lost") || !strings.Contains(string(logA), "msg=socket_recreated") ||
		!strings.Contains(string(logB), "msg=socket_lost") ||
		!strings.Contains(string(logA), "msg=session_files_lost") || !strings.Contains(string(logA), "msg=queue_file_failed") ||
		!strings.Contains(string(logA), "msg=queue_file_written") {
		t.Fatalf("session logs do not say what happened:\n%s\n---\n%s", logA, logB)
	}
}
