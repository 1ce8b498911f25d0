//go:build linux

package broker_test

import (
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EStatusLineQueueFiles: real supervisors publish their queue facts
// in <runtime dir>/queue (0600 files in a 0700 dir), `sup status-line`
// follows their stuck state from those files alone, a supervisor that
// exits removes its file, and the file of one killed with SIGKILL is
// ignored and cleaned by the next status-line.
func TestE2EStatusLineQueueFiles(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	rt := f.env["SUP_RUNTIME_DIR"]
	f.start("alpha")
	f.start("beta")
	alpha, beta := f.session("alpha"), f.session("beta")
	alphaFile := paths.QueueFile(rt, alpha.State.SessionID)
	betaFile := paths.QueueFile(rt, beta.State.SessionID)

	if fi, err := os.Stat(paths.QueueDir(rt)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("queue dir: %v, %v; want mode 0700", fi, err)
	}
	facts := func(path string) ipc.QueueFacts {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s has mode %v, want 0600", path, fi.Mode())
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var q ipc.QueueFacts
		if err := json.Unmarshal(data, &q); err != nil {
			t.Fatalf("%s: %v: %q", path, err, data)
		}
		return q
	}
	if q := facts(alphaFile); q.SessionID != alpha.State.SessionID || q.Name != "alpha" ||
		q.SupPID != alpha.State.SupPID || q.Lifecycle != "running" || q.WaitingSince != 0 {
		t.Fatalf("alpha's facts before it waits: %+v", q)
	}
	statusLine := func() string {
		t.Helper()
		return strings.TrimSpace(f.mustSup("status-line"))
	}
	if out := statusLine(); out != "" {
		t.Fatalf("status-line with nobody waiting: %q", out)
	}

	// The hook's answer comes after the file is written: no waiting.
	f.stuck("alpha")
	f.stuck("beta")
	if q := facts(alphaFile); q.WaitingSince == 0 || q.Activity != "ready" {
		t.Fatalf("alpha's facts after Stop: %+v", q)
	}
	if out := statusLine(); out != "⚠ 2 stuck · next: alpha" {
		t.Fatalf("status-line: %q", out)
	}
	f.hook("alpha", "UserPromptSubmit")
	if out := statusLine(); out != "⚠ 1 stuck · next: beta" {
		t.Fatalf("status-line after alpha progressed: %q", out)
	}
	f.stuck("alpha")

	// A clean exit takes the file with it.
	f.mustSup("stop", "alpha")
	testutil.WaitUntil(t, 10*time.Second, "alpha's queue file to go", func() bool {
		_, err := os.Stat(alphaFile)
		return os.IsNotExist(err)
	})
	if out := statusLine(); out != "⚠ 1 stuck · next: beta" {
		t.Fatalf("status-line after alpha stopped: %q", out)
	}

	// SIGKILL leaves the file; status-line ignores it once the process is
	// gone, and removes it.
	if err := syscall.Kill(beta.State.SupPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testutil.WaitUntil(t, 10*time.Second, "the killed beta to leave the status line", func() bool {
		return statusLine() == ""
	})
	if _, err := os.Stat(betaFile); !os.IsNotExist(err) {
		t.Fatalf("beta's queue file after status-line saw it dead: %v", err)
	}
}
