//go:build linux

package supervisor_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestE2EForeignRuntimeDirRefused replays the attack of issue 20: another
// local user pre-creates the victim's runtime dir (mode 0777) and serves a
// fake supervisor in it that answers everyone. Every broker verb of the
// victim refuses the dir, naming it, its owner and what to do, and the fake
// supervisor never receives a byte: no prompt, no secret, no hook. A hook
// pointed straight at the fake socket (SUP_SOCKET) is refused by the
// client's peer check. The victim's own supervisor, in its own dir, still
// answers.
func TestE2EForeignRuntimeDirRefused(t *testing.T) {
	t.Parallel()
	setpriv := testutil.Setpriv(t)
	r := newRig(t, "")
	r.start("-echo")
	uid := unusedUID(t)
	peer := otherUIDCopy(t, testutil.BuildPackage(t, "./ipc/testdata/peer"))

	// The attacker's dir: theirs, world-writable, as in the report.
	base, err := os.MkdirTemp("", "sup-foreign-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	evil := filepath.Join(base, "sup-"+strconv.Itoa(os.Geteuid()))
	if err := os.Mkdir(evil, 0o777); err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(uid)
	if err := os.Chown(evil, n, n); err != nil {
		t.Fatal(err)
	}
	os.Chmod(evil, 0o777) // Mkdir's mode went through the umask
	sock := filepath.Join(evil, "fake.sock")
	fake := exec.Command(setpriv, "--reuid="+uid, "--regid="+uid, "--clear-groups", peer, "-serve", sock)
	var seen testutil.Buffer
	fake.Stdout, fake.Stderr = &seen, &seen
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fake.Process.Kill()
		fake.Wait()
	})
	testutil.WaitUntil(t, 10*time.Second, "the fake supervisor to listen", func() bool {
		return strings.Contains(seen.String(), "serving")
	})

	victim := func(extra []string, args ...string) (string, error) {
		env := append(r.Environ(), extra...)
		return r.Sup(env, args...)
	}
	inEvil := []string{"SUP_RUNTIME_DIR=" + evil}
	for _, args := range [][]string{
		{"ls"}, {"ls", "--json"}, {"queue"}, {"queue", "--json"}, {"next"}, {"skip"}, {"status-line"},
		{"events", "--all"}, {"metrics"}, {"route", "--name", "fake", "the secret is 42"},
		{"trigger", "fake", "the secret is 42"}, {"answer", "fake", "yes"}, {"state", "fake"},
		{"inject", "fake", "the secret is 42"}, {"stop", "fake"}, {"explain", "fake"},
	} {
		out, err := victim(inEvil, args...)
		se, _ := err.(*testutil.SupError)
		if se == nil || out != "" {
			t.Fatalf("sup %v in uid %s's dir: err %v, stdout %q; want a refusal", args, uid, err, out)
		}
		for _, want := range []string{"runtime dir " + evil, "owned by uid " + uid, "mode 0777", "not by you",
			"have its owner or root remove it, or set SUP_RUNTIME_DIR"} {
			if !strings.Contains(se.Stderr, want) {
				t.Fatalf("sup %v: stderr %q does not say %q", args, se.Stderr, want)
			}
		}
	}

	// A hook aimed at the fake socket: sup hook is silent and exits 0 by
	// design, so the proof is what the fake server received.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hook := exec.CommandContext(ctx, r.bins.Sup, "hook")
	hook.Env = append(r.Environ(), "SUP_SOCKET="+sock, "SUP_SESSION=fake")
	hook.Stdin = strings.NewReader(`{"hook_event_name":"Stop","session_id":"x","last_assistant_message":"the secret is 42"}`)
	var hookErr bytes.Buffer
	hook.Stderr = &hookErr
	if err := hook.Run(); err != nil {
		t.Fatalf("sup hook: %v (%s)", err, hookErr.String())
	}

	time.Sleep(200 * time.Millisecond) // a frame in flight would have been logged by now
	if got := seen.String(); strings.Contains(got, "frame") {
		t.Fatalf("the fake supervisor of uid %s received requests:\n%s", uid, got)
	}

	// The victim's own supervisor is untouched and served as usual.
	if out := r.mustSup("ls"); !strings.Contains(out, "doc") {
		t.Fatalf("sup ls in the victim's own dir:\n%s", out)
	}
}
