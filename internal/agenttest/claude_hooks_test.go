package agenttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// installHooks runs `sup hooks install claude --user` into the sandbox
// before claude starts, as a user would.
func installHooks(a *Agent) { installClaudeHooks(a, "--user") }

// installProjectHooks runs `sup hooks install claude --project DIR` for the
// agent's project directory before claude starts.
func installProjectHooks(a *Agent) { installClaudeHooks(a, "--project", a.Dir) }

// installClaudeHooks runs `sup hooks install claude SCOPE...` in the
// sandbox.
func installClaudeHooks(a *Agent, scope ...string) {
	args := append([]string{"hooks", "install", "claude"}, scope...)
	cmd := exec.Command(a.Sup, append(args, "--sup-path", a.Sup)...)
	cmd.Env = append(os.Environ(), "HOME="+a.Home, "CLAUDE_CONFIG_DIR="+filepath.Join(a.Home, ".claude"))
	if out, err := cmd.CombinedOutput(); err != nil {
		a.T.Fatalf("sup %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// watchActivity follows the session's activity events and returns a func
// that waits for the next one with the given activity, reporting when the
// supervisor published it.
func watchActivity(t *testing.T, a *Agent) func(want string) ipc.Event {
	sock, err := filepath.Glob(filepath.Join(a.Env["SUP_RUNTIME_DIR"], "*.sock"))
	if err != nil || len(sock) != 1 {
		t.Fatalf("socket of the session: %v %v", sock, err)
	}
	c, err := ipc.Dial(sock[0], time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sub, err := c.Subscribe(context.Background(), []string{"activity"})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan ipc.Event, 64)
	go func() {
		defer close(events)
		for {
			ev, err := sub.Next()
			if err != nil {
				return
			}
			events <- ev
		}
	}()
	return func(want string) ipc.Event {
		t.Helper()
		deadline := time.After(30 * time.Second)
		var seen []string
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("activity events ended; saw %v, want %s", seen, want)
				}
				got, _ := ev.Data["activity"].(string)
				seen = append(seen, got+"("+ev.Data["rule"].(string)+")")
				if got == want {
					return ev
				}
			case <-deadline:
				t.Fatalf("no %s activity within 30s; saw %v\n%s", want, seen, a.Screen())
			}
		}
	}
}

// TestClaudeHooksDriveState: with `sup hooks install claude`, a real
// permission prompt makes state needs_confirmation with the command in the
// summary; approving it goes busy then ready; agent_session_id is the id
// Claude's hooks carry.
func TestClaudeHooksDriveState(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(installHooks))
	next := watchActivity(t, a)
	a.Type("RUN: touch hooked.txt")
	next("busy")
	ev := next("needs_confirmation")
	// The screen may see the prompt first; the hook then adds the command.
	var st ipc.State
	testutil.WaitUntil(t, 10*time.Second, "the PermissionRequest hook's summary", func() bool {
		st = a.State()
		return strings.Contains(st.Summary, "touch hooked.txt")
	})
	if st.Activity != "needs_confirmation" || st.Reason != "permission" {
		t.Fatalf("at the permission prompt: activity %q reason %q summary %q", st.Activity, st.Reason, st.Summary)
	}
	if st.AgentSessionID == "" || st.WaitingSince == 0 {
		t.Fatalf("agent_session_id %q, waiting_since %d", st.AgentSessionID, st.WaitingSince)
	}
	t.Logf("needs_confirmation published by %v", ev.Data["rule"])
	a.WaitScreen(ClaudePermission)
	a.PressUntilGone(ClaudePermission, "Enter")
	next("busy")
	next("ready")
	if _, err := os.Stat(filepath.Join(a.Dir, "hooked.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	end := a.State()
	if end.Reason != "stopped" || !strings.HasPrefix(end.Summary, "done: ") || end.AgentSessionID != st.AgentSessionID {
		t.Fatalf("after the turn: reason %q summary %q agent session %q (was %q)", end.Reason, end.Summary, end.AgentSessionID, st.AgentSessionID)
	}
	// The transcript Claude named in SessionStart carries the same id.
	if !transcriptHas(a.Home, st.AgentSessionID) {
		t.Fatalf("no transcript of session %s under %s", st.AgentSessionID, a.Home)
	}
}

func transcriptHas(home, id string) bool {
	found := false
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, id+".jsonl") {
			found = true
		}
		return nil
	})
	return found
}
