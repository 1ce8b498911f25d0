//go:build linux

package supervisor_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// notifications reads what the notify command appended: one environment
// per notification, as NAME=value lines.
func notifications(file string) []map[string]string {
	data, _ := os.ReadFile(file) // Best effort: absent until the first.
	var out []map[string]string
	for _, block := range strings.Split(string(data), "--END--\n") {
		if strings.TrimSpace(block) == "" {
			continue
		}
		env := map[string]string{}
		for _, l := range strings.Split(block, "\n") {
			if k, v, ok := strings.Cut(l, "="); ok && strings.HasPrefix(k, "SUP_") {
				env[k] = v
			}
		}
		out = append(out, env)
	}
	return out
}

// TestE2ENotify: with a real attached tmux client, a stuck session is
// notified once per waiting episode after `after` — not while the client
// shows its pane, at once when it looks away, not again for the same
// episode, again after the session waited anew — through the user's
// command (its environment describes the wait) and a display-message the
// client shows.
func TestE2ENotify(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	file := filepath.Join(r.dir, "notified")
	r.write("config/sup/config.yaml", "notify:\n  after: 1s\n  command: [sh, -c, 'env >> \"$0\"; echo --END-- >> \"$0\"', "+strconv.Quote(file)+"]\n")
	pane := r.start("-echo")
	client := r.tm.AttachClient(t)
	show := func(p string) {
		t.Helper()
		if _, err := r.tm.Run("select-window", "-t", p); err != nil {
			t.Fatal(err)
		}
		testutil.WaitUntil(t, 10*time.Second, "the client to show "+p, func() bool { return r.tm.ClientPane(t, client) == p })
	}
	show(pane)
	r.hook(`{"session_id":"c1","hook_event_name":"Stop","last_assistant_message":"all done"}`)
	st := r.state("doc")
	time.Sleep(2500 * time.Millisecond)
	if n := notifications(file); len(n) != 0 {
		t.Fatalf("notified while the client shows the pane: %v", n)
	}
	// The human looks elsewhere: within the watch poll (1 s), one
	// notification.
	show(r.tm.NewWindow(r.env, "sleep", "600"))
	testutil.WaitUntil(t, 20*time.Second, "a notification", func() bool { return len(notifications(file)) == 1 })
	n := notifications(file)[0]
	waited, _ := strconv.ParseInt(n["SUP_WAITING_MS"], 10, 64)
	if n["SUP_SESSION"] != st.SessionID || n["SUP_NAME"] != "doc" || n["SUP_REASON"] != "stopped" || n["SUP_SUMMARY"] != "all done" ||
		n["SUP_PANE"] != pane || waited < 2500 || n["SUP_PROMPT_ID"] != "" {
		t.Fatalf("the command's environment: %v", n)
	}
	testutil.WaitUntil(t, 20*time.Second, "the display-message on the attached client", func() bool {
		return strings.Contains(client.Output(), "doc waits (stopped: all done")
	})
	time.Sleep(2 * time.Second)
	if got := len(notifications(file)); got != 1 {
		t.Fatalf("%d notifications for one episode", got)
	}
	// A new episode: progress, then a wait again.
	r.hook(`{"session_id":"c1","hook_event_name":"UserPromptSubmit","prompt":"more"}`)
	r.hook(`{"session_id":"c1","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm x"}}`)
	testutil.WaitUntil(t, 20*time.Second, "a second notification", func() bool { return len(notifications(file)) == 2 })
	if n := notifications(file)[1]; n["SUP_REASON"] != "permission" || n["SUP_SUMMARY"] != "Bash: rm x" || n["SUP_PROMPT_ID"] == "" {
		t.Fatalf("the second notification: %v", n)
	}
}
