//go:build linux

package supervisor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EFaultTmuxGoesAway: closing a pane, then killing the whole tmux
// server, ends every supervisor in them, its guard and its agent (which ignores
// SIGTERM: the SIGKILL after stop_grace ends it), removes their sockets,
// and each session log says why.
func TestE2EFaultTmuxGoesAway(t *testing.T) {
	t.Parallel()
	r := newRig(t, "stop_grace: 300ms\n")
	r.write("b.md", "# another document\n")
	paneA := r.start("-ignore-term", "-ignore-hup")
	a := r.state("doc")
	paneB := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "b.md"), "--", "fakeagent", "-ignore-term", "-ignore-hup")
	r.tm.WaitFor(t, paneB, "fakeagent ready", 10*time.Second)
	b := r.state("b")
	if len(r.sockets()) != 2 {
		t.Fatalf("sockets = %v, want two", r.sockets())
	}

	guardA, guardB := r.guardOf(a), r.guardOf(b)
	gone := func(what string, st ipc.State, guard int) {
		t.Helper()
		testutil.WaitUntil(t, 15*time.Second, what+": sup, its guard, its agent and its socket to be gone", func() bool {
			_, err := os.Stat(filepath.Join(r.env["SUP_RUNTIME_DIR"], st.SessionID+".sock"))
			return !testutil.ProcessAlive(st.SupPID) && !testutil.ProcessAlive(guard) && !testutil.GroupAlive(st.PID) &&
				len(testutil.SessionMembers(st.PID)) == 0 && os.IsNotExist(err)
		})
		logText, err := os.ReadFile(filepath.Join(r.dir, "state", "sup", st.SessionID+".log"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"msg=child_ended why=\"signal hangup\"", "msg=stop why=\"signal hangup\""} {
			if !strings.Contains(string(logText), want) {
				t.Fatalf("%s: session log lacks %q:\n%s", what, want, logText)
			}
		}
	}

	r.tm.KillPane(paneA)
	gone("pane closed", a, guardA)
	if !testutil.ProcessAlive(b.SupPID) || !testutil.ProcessAlive(b.PID) {
		t.Fatal("closing one pane ended the other pane's supervisor")
	}
	if _, err := r.tm.Run("kill-server"); err != nil {
		t.Fatalf("tmux kill-server: %v", err)
	}
	gone("server killed", b, guardB)
}
