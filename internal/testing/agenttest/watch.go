//go:build linux

package agenttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// InstallHooks runs `sup hooks install ARGS... --sup-path supPath` in the
// agent's sandbox (its HOME and each agent's config dir), with supPath as
// the program the hooks run (a.Sup, or a wrapper that timestamps them), as
// a user would before the agent starts: call it from WithBeforeStart.
func (a *Agent) InstallHooks(supPath string, args ...string) {
	a.T.Helper()
	args = append(append([]string{"hooks", "install"}, args...), "--sup-path", supPath)
	cmd := exec.Command(a.Sup, args...)
	cmd.Env = append(os.Environ(), "HOME="+a.Home, "CLAUDE_CONFIG_DIR="+filepath.Join(a.Home, ".claude"), "GEMINI_CLI_HOME="+a.Home)
	if home, ok := a.Env["CODEX_HOME"]; ok {
		cmd.Env = append(cmd.Env, "CODEX_HOME="+home)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		a.T.Fatalf("sup %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Socket returns the session's socket in the agent's private runtime dir.
func (a *Agent) Socket() string {
	a.T.Helper()
	sock, err := filepath.Glob(filepath.Join(a.Env["SUP_RUNTIME_DIR"], "*.sock"))
	if err != nil || len(sock) != 1 {
		a.T.Fatalf("socket of the session: %v %v", sock, err)
	}
	return sock[0]
}

// WatchActivity follows the session's activity events and returns a func
// that waits for the next one with the given activity (failing the test
// after 30 s), reporting when the supervisor published it.
func (a *Agent) WatchActivity() func(want string) ipc.Event {
	t := a.T
	t.Helper()
	c, err := ipc.Dial(a.Socket(), time.Second)
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
				rule, _ := ev.Data["rule"].(string)
				seen = append(seen, got+"("+rule+")")
				if got == want {
					return ev
				}
			case <-deadline:
				t.Fatalf("no %s activity within 30s; saw %v\n%s", want, seen, a.Screen())
			}
		}
	}
}

// WaitScreenAt waits up to ScreenTimeout for substr on the pane and
// returns when it was first seen: polled every 20 ms, so an upper bound on
// when tmux showed it. Not more often: a look is a tmux client (~12 ms of
// CPU), and at 5 ms the wait kept a core busy.
func (a *Agent) WaitScreenAt(substr string) time.Time {
	a.T.Helper()
	deadline := time.Now().Add(ScreenTimeout)
	for time.Now().Before(deadline) {
		if strings.Contains(a.Screen(), substr) {
			return time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.T.Fatalf("%q never on screen:\n%s", substr, a.Screen())
	return time.Time{}
}
