//go:build linux

package ipctest

import (
	"context"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// callTimeout bounds each call: generous, since the suite runs with -race
// on two cores beside other tests.
const callTimeout = 5 * time.Second

// Call makes one request to the supervisor at sock and decodes its result
// into out (nil: dropped); the test fails if the call does.
func Call(t testing.TB, sock, method string, params, out any) {
	t.Helper()
	if err := TryCall(sock, method, params, out); err != nil {
		t.Fatalf("%s at %s: %v", method, sock, err)
	}
}

// TryCall is Call returning the error, for a poll that may begin before
// the supervisor listens.
func TryCall(sock, method string, params, out any) error {
	c, err := ipc.Dial(sock, callTimeout)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return c.Call(ctx, method, params, out)
}

// Hook tells the supervisor at sock that a Claude Code hook fired, as `sup
// hook` does (in process: `sup hook` drops what does not arrive within its
// budget, silently). The agent's conversation is "conv-NAME"; a Stop says
// "NAME is done"; a PermissionRequest asks to run `touch NAME`.
func Hook(t testing.TB, sock, name, event string) {
	t.Helper()
	p := ipc.HookParams{Agent: "claude", Event: event, SessionID: "conv-" + name, Message: name + " is done"}
	if event == "PermissionRequest" {
		p.ToolName, p.Command = "Bash", "touch "+name
	}
	Call(t, sock, ipc.MethodHook, p, nil)
}

// Stuck makes the session at sock wait on the human, as Claude Code's Stop
// hook does, and returns once its waiting_since is in the past: the next
// session to get stuck is then strictly behind it in the FIFO queue (two
// in the same millisecond would be ordered by session id).
func Stuck(t testing.TB, sock, name string) {
	t.Helper()
	Hook(t, sock, name, "Stop")
	testutil.WaitUntil(t, callTimeout, name+" to wait on the human", func() bool {
		st := State(t, sock)
		return st.WaitingSince != 0 && time.Now().UnixMilli() > st.WaitingSince
	})
}

// State is what the supervisor at sock answers to state.
func State(t testing.TB, sock string) ipc.State {
	t.Helper()
	var st ipc.State
	Call(t, sock, ipc.MethodState, nil, &st)
	return st
}
