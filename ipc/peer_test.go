//go:build linux

package ipc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testutil"
)

// TestPeerUIDRefused runs a real process as another uid (setpriv, as root)
// against a server and checks it gets PERMISSION_DENIED and a log line.
func TestPeerUIDRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		testutil.Missing(t, "needs root to run a peer as another uid (setpriv --reuid); running as uid %d", os.Geteuid())
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		testutil.Missing(t, "setpriv (util-linux) not installed: %v", err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		testutil.Missing(t, "go tool not on PATH, cannot build the peer helper: %v", err)
	}
	binDir := shortDir(t)
	bin := filepath.Join(binDir, "peer")
	build := exec.Command(goTool, "build", "-o", bin, "./testdata/peer")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the peer helper: %v\n%s", err, out)
	}
	os.Chmod(binDir, 0o755)

	ts := startServer(t, ServerConfig{}, testHandlers)
	// Let uid 65534 reach the socket: search on the dir, write on the socket.
	os.Chmod(filepath.Dir(ts.path), 0o711)
	os.Chmod(ts.path, 0o666)

	run := func(args ...string) string {
		cmd := exec.Command(bin, ts.path)
		if len(args) > 0 {
			cmd = exec.Command(setpriv, append(args, bin, ts.path)...)
		}
		done := make(chan struct{})
		timer := time.AfterFunc(10*time.Second, func() {
			select {
			case <-done:
			default:
				cmd.Process.Kill()
			}
		})
		defer timer.Stop()
		out, err := cmd.CombinedOutput()
		close(done)
		if err != nil {
			t.Fatalf("peer %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run("--reuid=65534", "--regid=65534", "--clear-groups"); got != "code="+string(CodePermissionDenied) {
		t.Fatalf("peer as uid 65534: %q, want code=%s", got, CodePermissionDenied)
	}
	logs := ts.logs.String()
	if !strings.Contains(logs, "peer_uid=65534") || !strings.Contains(logs, "peer_pid=") {
		t.Fatalf("refusal not logged with uid and pid:\n%s", logs)
	}
	// The same helper as our own uid is served: the refusal was about the uid.
	if got := run(); got != "ok" {
		t.Fatalf("peer as our own uid: %q, want ok", got)
	}
}

// TestPeerUIDMismatchConfigured: a server configured for another uid refuses
// us, without needing root.
func TestPeerUIDMismatchConfigured(t *testing.T) {
	ts := startServer(t, ServerConfig{UID: os.Geteuid() + 1}, testHandlers)
	c := dialRaw(t, ts.path)
	r := readResponse(t, c)
	if r.Error == nil || r.Error.Code != CodePermissionDenied || r.ID != 0 {
		t.Fatalf("got %+v, want PERMISSION_DENIED with id 0", r)
	}
	expectClosed(t, c, time.Second)
}
