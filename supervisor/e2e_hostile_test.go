//go:build linux

package supervisor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestE2ENotifyHostile: a real tmux server with an attached client and
// notify on (tmux display, the user's command). An agent's Stop message,
// a PermissionRequest's command and the session's name hold #(touch FILE),
// #{…}, #[…] and terminal controls: no FILE ever appears, the client shows
// the text as written, and the notify command gets it as one line without
// a control byte (specs/security.md, "tmux").
func TestE2ENotifyHostile(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	dir := t.TempDir()
	touch := func(n string) string { return filepath.Join(dir, n) }
	file := filepath.Join(r.dir, "notified")
	r.write("config/sup/config.yaml", "notify:\n  after: 1s\n  command: [sh, -c, 'env >> \"$0\"; echo --END-- >> \"$0\"', "+strconv.Quote(file)+"]\n")
	name := "n#(touch " + touch("name") + ")#{pane_id}"
	r.write("evil.md", "---\nsup:\n  name: "+strconv.Quote(name)+"\n---\n# evil\n")
	pane := r.Start("evil", "-echo")
	client := r.tm.AttachClient(t)
	away := r.tm.NewWindow(r.env, "sleep", "600")
	if _, err := r.tm.Run("select-window", "-t", away); err != nil {
		t.Fatal(err)
	}
	testutil.WaitUntil(t, 10*time.Second, "the client to look away", func() bool { return r.tm.ClientPane(t, client) == away })
	sock := r.state(name).TmuxPane
	if sock != pane {
		t.Fatalf("state of %q: pane %q, want %q", name, sock, pane)
	}
	stop := "Done. #(touch " + touch("stop") + ") #{pane_id} #[fg=red]\x1b]52;c;cHduZWQ=\x07\u202e\r!"
	msg, _ := json.Marshal(map[string]string{"session_id": "c1", "hook_event_name": "Stop", "last_assistant_message": stop})
	r.hookTo(r.sockets()[0], string(msg))
	testutil.WaitUntil(t, 10*time.Second, "a notification", func() bool { return len(notifications(file)) == 1 })
	n := notifications(file)[0]
	wantSummary := "Done. #(touch " + touch("stop") + `) #{pane_id} #[fg=red]\x1b]52;c;cHduZWQ=\x07\u202e\r!`
	if n["SUP_NAME"] != name || n["SUP_SUMMARY"] != wantSummary {
		t.Errorf("the command's environment: name %q summary %q, want %q and %q", n["SUP_NAME"], n["SUP_SUMMARY"], name, wantSummary)
	}
	testutil.WaitUntil(t, 20*time.Second, "the display-message as written", func() bool {
		return strings.Contains(client.Output(), "n#(touch ") && strings.Contains(client.Output(), "Done. #(touch ")
	})

	r.hookTo(r.sockets()[0], `{"session_id":"c1","hook_event_name":"UserPromptSubmit","prompt":"more"}`)
	perm, _ := json.Marshal(map[string]any{"session_id": "c1", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "echo #(touch " + touch("perm") + ") #{session_name}"}})
	r.hookTo(r.sockets()[0], string(perm))
	testutil.WaitUntil(t, 10*time.Second, "a second notification", func() bool { return len(notifications(file)) == 2 })
	if got := notifications(file)[1]["SUP_SUMMARY"]; !strings.Contains(got, "echo #(touch "+touch("perm")+") #{session_name}") {
		t.Errorf("the second notification's summary %q", got)
	}
	// #() jobs start when tmux expands the format and run at once: give
	// any a moment, then look.
	time.Sleep(2 * time.Second)
	for _, f := range []string{"name", "stop", "perm"} {
		if _, err := os.Stat(touch(f)); err == nil {
			t.Errorf("#(touch %s) ran as the operator", f)
		}
	}
	if strings.Contains(client.Output(), "\x1b]52;c;cHduZWQ") {
		t.Error("the agent's OSC 52 reached the operator's terminal")
	}
}
