//go:build linux

package broker_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestE2EHostileNamesInTmux: session names holding #(touch FILE), #{…} and
// #[…], here and on another host (the hosts rig: a second user behind a
// real sshd), through the paths that show them in the human's tmux: `sup
// next --display` (the prefix+Tab binding) reports the local one on the
// attached client, and `sup next` opens a local window named after the
// remote one. No FILE appears; the names are shown as written.
func TestE2EHostileNamesInTmux(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	r := newRemoteHost(t, f.Rig)
	f.write("config/sup/config.yaml", r.hostsConfig())
	dir := t.TempDir()
	os.Chmod(dir, 0o777) // the remote user's #(touch) must be able to succeed, were it run
	local := "l#(touch " + filepath.Join(dir, "local") + ")#{pane_id}"
	remote := "r#(touch " + filepath.Join(dir, "remote") + ")#{session_name}"

	f.write("evil.md", "---\nsup:\n  name: "+strconv.Quote(local)+"\n---\n# evil\n")
	f.start("evil")
	doc := r.write("revil.md", "---\nsup:\n  name: "+strconv.Quote(remote)+"\n---\n# revil\n")
	rpane := r.runAs("tmux", "-L", r.tmux, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
		testutil.ShellCommand(nil, r.bin+"/sup", "start", doc, "--", "fakeagent", "-raw", "-ack"))
	testutil.WaitUntil(t, 15*time.Second, "the remote session to start", func() bool {
		out, _ := r.runAsErr("tmux", "-L", r.tmux, "capture-pane", "-p", "-t", rpane)
		return strings.Contains(out, "fakeagent ready")
	})
	f.stuck(local)
	r.hook(remote, "Stop")

	out, err := f.sup("next", "--display", "--client", f.client.TTY)
	if err != nil {
		t.Fatalf("sup next --display: %v: %s", err, out)
	}
	testutil.WaitUntil(t, 20*time.Second, "the report on the client's status line, as written", func() bool {
		return strings.Contains(f.client.Output(), "(l#(touch ")
	})
	f.hook(local, "UserPromptSubmit") // the remote one is the head now
	if out, err := f.sup("next", "--client", f.client.TTY); err != nil {
		t.Fatalf("sup next on the remote head: %v: %s", err, out)
	}
	win, err := f.tm.Run("display-message", "-p", "-t", f.clientPane(), "#{window_name}")
	if want := "remote:" + remote; err != nil || win != want {
		t.Errorf("the remote window is named %q (%v), want %q", win, err, want)
	}
	time.Sleep(2 * time.Second) // a #() job would have run by now
	for _, n := range []string{"local", "remote"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("the %s session's name ran #(touch) as the operator", n)
		}
	}
}
