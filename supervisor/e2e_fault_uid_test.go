//go:build linux

package supervisor_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestE2EFaultOtherUIDRefused: a process of another uid can neither list,
// read the state of, nor inject into a supervisor — neither through the
// default modes (dir 0700, socket 0600) nor after someone opened them wide
// (dir 0755, socket 0666), where its sup refuses the runtime dir it does not
// own, nor through a symlink to the socket in a dir of its own, where the
// SO_PEERCRED checks (its client's and the server's) refuse it.
func TestE2EFaultOtherUIDRefused(t *testing.T) {
	t.Parallel()
	setpriv := testutil.Setpriv(t)
	r := newRig(t, "")
	pane := r.start("-echo")
	before := r.state("doc")
	sock := r.sockets()[0]
	rt := filepath.Dir(sock)
	sup := otherUIDCopy(t, r.bins.Sup)
	uid := unusedUID(t)

	as := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		argv := append([]string{"--reuid=" + uid, "--regid=" + uid, "--clear-groups", sup}, args...)
		cmd := exec.CommandContext(ctx, setpriv, argv...)
		cmd.Dir = "/"
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "SUP_RUNTIME_DIR=" + rt}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	refused := func(how string, wantText string) {
		t.Helper()
		for _, args := range [][]string{
			{"ls"},
			{"state", "--json", before.SessionID},
			{"inject", before.SessionID, "from uid " + uid},
			{"stop", before.SessionID},
		} {
			out, err := as(args...)
			if args[0] == "ls" {
				// An error line may name the socket; a row starts with the id.
				if strings.Contains(out, "\n"+before.SessionID) || strings.HasPrefix(out, before.SessionID) {
					t.Fatalf("%s: uid %s listed the session:\n%s", how, uid, out)
				}
				continue
			}
			if err == nil || strings.Contains(out, `"pid"`) || !strings.Contains(out, wantText) {
				t.Fatalf("%s: uid %s ran sup %v: err %v, output %q; want a failure saying %q", how, uid, args, err, out, wantText)
			}
		}
	}

	refused("default modes", "is owned by uid 0")

	// Opened wide: the other user's sup refuses a runtime dir it does not
	// own before it lists anything (specs/security.md, "Local peers").
	if err := os.Chmod(rt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	refused("dir 0755, socket 0666", "is owned by uid 0")

	// Through a dir of their own holding a symlink to the socket: the
	// connection is made, and each side's peer check refuses the other.
	own := filepath.Join(filepath.Dir(sup), "rt")
	if err := os.Mkdir(own, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sock, filepath.Join(own, before.SessionID+".sock")); err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(uid)
	if err := os.Chown(own, n, n); err != nil {
		t.Fatal(err)
	}
	rt = own
	refused("own dir, symlinked socket 0666", "PERMISSION_DENIED")

	// Nothing reached the child, and the supervisor is unharmed.
	time.Sleep(200 * time.Millisecond)
	if text := r.tm.CaptureAll(pane); strings.Contains(text, "from uid") {
		t.Fatalf("an injection from uid %s reached the child:\n%s", uid, text)
	}
	after := r.state("doc")
	if after.PID != before.PID || after.Lifecycle != "running" || !testutil.ProcessAlive(after.SupPID) {
		t.Fatalf("after the refused clients: %+v, want the same running child %d", after, before.PID)
	}
	r.mustSup("inject", "doc", "still served")
	r.tm.WaitFor(t, pane, "got: still served", 5*time.Second)
}

// otherUIDCopy copies the binary into a directory every uid may enter (the
// build directory is private).
func otherUIDCopy(t *testing.T, bin string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sup-otheruid-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "sup")
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// unusedUID picks a uid no process runs as and /etc/passwd does not name,
// so the test needs no user account and leaves none behind.
func unusedUID(t *testing.T) string {
	t.Helper()
	passwd, _ := os.ReadFile("/etc/passwd") // Best effort: absent in minimal containers.
	for range 100 {
		n, err := rand.Int(rand.Reader, big.NewInt(1<<20))
		if err != nil {
			t.Fatal(err)
		}
		uid := strconv.FormatInt(n.Int64()+3_000_000, 10)
		if bytes.Contains(passwd, []byte(":"+uid+":")) {
			continue
		}
		inUse := false
		for _, p := range testutil.Procs() {
			if st, err := os.Stat("/proc/" + strconv.Itoa(p.PID)); err == nil {
				if sys, ok := st.Sys().(*syscall.Stat_t); ok && strconv.Itoa(int(sys.Uid)) == uid {
					inUse = true
				}
			}
		}
		if !inUse {
			return uid
		}
	}
	t.Fatal("no unused uid found")
	return ""
}
