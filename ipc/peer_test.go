//go:build linux

package ipc

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// peerHelper builds testdata/peer where another uid may run it, and
// returns it with the path of setpriv; the test is skipped (failed in CI)
// when it cannot run a process as another uid.
func peerHelper(t *testing.T) (bin, setpriv string) {
	t.Helper()
	setpriv = testutil.Setpriv(t)
	return buildPeer(t), setpriv
}

// buildPeer builds testdata/peer into a directory every uid may enter.
func buildPeer(t *testing.T) string {
	t.Helper()
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
	return bin
}

// asNobody is the setpriv prefix that runs a program as uid 65534.
var asNobody = []string{"--reuid=65534", "--regid=65534", "--clear-groups"}

// TestPeerUIDRefused runs a real process as another uid (setpriv, as root)
// against a server and checks it gets PERMISSION_DENIED and a log line.
func TestPeerUIDRefused(t *testing.T) {
	bin, setpriv := peerHelper(t)
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
	if got := run(asNobody...); !strings.HasPrefix(got, "code="+string(CodePermissionDenied)+" ") {
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

// TestClientRefusesForeignServer: a hostile local user (uid 65534) serves a
// fake supervisor that answers anyone; Dial refuses it with
// PERMISSION_DENIED naming the path and the uid, before a single byte is
// sent, while a client without the check would have been served.
func TestClientRefusesForeignServer(t *testing.T) {
	bin, setpriv := peerHelper(t)
	dir := shortDir(t)
	os.Chmod(dir, 0o777) // the other user's socket goes here
	path := filepath.Join(dir, "fake.sock")
	cmd := exec.Command(setpriv, append(asNobody, bin, "-serve", path)...)
	var out testutil.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	testutil.WaitUntil(t, 10*time.Second, "the fake server to listen", func() bool {
		return strings.Contains(out.String(), "serving")
	})

	c, err := Dial(path, 2*time.Second)
	if err == nil {
		c.Close()
		t.Fatal("Dial accepted a socket served by uid 65534")
	}
	var perr *Error
	if !errors.Is(err, ErrForeignServer) || !errors.As(err, &perr) || perr.Code != CodePermissionDenied {
		t.Fatalf("Dial: %v; want ErrForeignServer and PERMISSION_DENIED", err)
	}
	for _, want := range []string{path, "uid 65534", "not by you", "remove the socket"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("Dial error %q does not say %q", err, want)
		}
	}

	// The Python client refuses it too.
	if py := pythonWithMsgpack(); py != "" {
		script := "import sys; sys.path.insert(0, sys.argv[1]); import sup_client\n" +
			"try:\n    sup_client.Client(sys.argv[2])\nexcept sup_client.SupError as e:\n    print(e.code, e.message)\n"
		out, err := exec.Command(py, "-c", script, filepath.Join(testutil.ModuleRoot(t), "clients", "python"), path).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "PERMISSION_DENIED "+path+" is served by uid 65534") {
			t.Fatalf("python client: %v\n%s", err, out)
		}
	} else {
		t.Log("no python3 with msgpack: the Python client's check is not exercised")
	}

	// The server is live and would have answered: a client without the
	// check gets through, and that hello is the only frame it ever saw.
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	raw := NewClient(nc)
	defer raw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := raw.Call(ctx, MethodHello, nil, nil); err != nil {
		t.Fatalf("unchecked client: %v", err)
	}
	testutil.WaitUntil(t, 20*time.Second, "the fake server to log the unchecked hello", func() bool {
		return strings.Contains(out.String(), "frame hello")
	})
	if n := strings.Count(out.String(), "frame "); n != 1 {
		t.Fatalf("the fake server saw %d frames, want only the unchecked client's:\n%s", n, out.String())
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

// pythonWithMsgpack is a python3 that can import msgpack (the Python
// client's one dependency), or "".
func pythonWithMsgpack() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(py); err == nil && exec.Command(p, "-c", "import msgpack").Run() == nil {
			return p
		}
	}
	return ""
}
