//go:build linux

package broker_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// startConfirm supervises fakeagent -confirm QUESTION for NAME.md on the
// remote host under the confirm profile; it returns its pane (of the
// remote tmux server) once the prompt is in the session's state.
func (r *remoteHost) startConfirm(name, question string) string {
	r.t.Helper()
	r.write(".config/sup/profiles/confirm.yaml", testutil.ConfirmProfile)
	doc := r.write(name+".md", "# "+name+"\n")
	pane := r.runAs("tmux", "-L", r.tmux, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:",
		testutil.ShellCommand(nil, r.bin+"/sup", "start", "--profile", "confirm", doc, "--", "fakeagent", "-raw", "-confirm", question))
	testutil.WaitUntil(r.t, 20*time.Second, name+"'s prompt on the remote host", func() bool {
		for _, s := range r.sessions() {
			if s.State.Name == name && s.State.PromptID != "" {
				return true
			}
		}
		return false
	})
	return pane
}

// paneShows waits until the remote pane shows want.
func (r *remoteHost) paneShows(pane, want string) {
	r.t.Helper()
	testutil.WaitUntil(r.t, 20*time.Second, fmt.Sprintf("remote pane %s to show %q", pane, want), func() bool {
		out, _ := r.runAsErr("tmux", "-L", r.tmux, "capture-pane", "-p", "-t", pane)
		return strings.Contains(out, want)
	})
}

// sup pick spans hosts: it lists a remote session's prompt with its host,
// previews its screen through the relay, answers it in place (audited on
// the remote host, naming the origin), and Enter opens the local window
// attached over ssh to the remote pane. sup explain and sup answer take
// host:name.
func TestE2EHostsPickAnswerExplain(t *testing.T) {
	f := newFleet(t, "")
	r := newRemoteHost(t, f.Rig)
	f.write("config/sup/config.yaml", fmt.Sprintf("hosts:\n  - {name: remote, ssh: remote, sup: %s}\n", r.bin+"/sup"))
	local := broker.LocalHostName()

	bravo := r.startConfirm("bravo", "rm bravo")
	delta := r.startConfirm("delta", "rm delta")
	echo := r.startConfirm("echo", "rm echo")

	// explain and answer through the relay, by host:name.
	out, stderr, _, err := f.supTimed("explain", "remote:echo")
	if err != nil || !strings.Contains(out, "activity needs_confirmation") || !strings.Contains(out, "prompt ") {
		t.Fatalf("sup explain remote:echo: %v\n%s%s", err, out, stderr)
	}
	out, stderr, _, err = f.supTimed("answer", "remote:echo", "yes")
	if err != nil || !strings.Contains(out, "answered echo's prompt") {
		t.Fatalf("sup answer remote:echo yes: %v\n%s%s", err, out, stderr)
	}
	r.paneShows(echo, "answered: y")

	// The picker: the host column, the remote prompt and its preview.
	p := f.pick("> remote")
	for _, want := range []string{"bravo", "prompt: rm bravo", "answer: y yes · n no · 1-2 option", "Allow rm bravo? [y/n]"} {
		f.tm.WaitForScreen(t, p, want, 20*time.Second)
	}
	f.tm.SendKeys(p, "y")
	r.paneShows(bravo, "answered: y")
	f.tm.WaitForScreen(t, p, "answered bravo: yes", 20*time.Second)
	f.tm.WaitForScreen(t, p, "prompt: rm delta", 20*time.Second)

	audit, err := os.ReadFile(r.auditFile())
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"pick", "cli"} {
		if want := regexp.MustCompile(`"requester":"` + who + `:[^"]*@` + regexp.QuoteMeta(local) + `"`); !want.Match(audit) {
			t.Errorf("remote audit has no answer by %s naming the origin host %s:\n%s", who, local, audit)
		}
	}

	// Enter on the remote delta: the local window attached to its pane.
	f.tm.SendKeys(p, "Enter")
	testutil.WaitUntil(t, 20*time.Second, "pick to quit on Enter", func() bool { return f.tm.PaneDead(p) })
	win, err := f.tm.Run("display-message", "-p", "-t", f.clientPane(), "#{window_name}")
	if err != nil || win != "remote:delta" {
		t.Fatalf("after Enter on remote delta the client shows window %q (%v), want remote:delta", win, err)
	}
	first, _, _ := strings.Cut(r.runAs("tmux", "-L", r.tmux, "capture-pane", "-p", "-t", delta), "\n")
	f.tm.WaitFor(t, f.clientPane(), first, 20*time.Second)
}
