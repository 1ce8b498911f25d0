//go:build linux

package agenttest

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// closedLoopbackURL returns an http URL on a loopback port nobody listens
// on: bound, then closed, so a connection to it is refused at once.
func closedLoopbackURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return url
}

// TestClaudeUnreachableIsStuck (issue 22): real Claude Code whose API is
// unreachable (ANTHROPIC_BASE_URL on a closed loopback port) first
// retries — sup reads that as error, reason retrying, deliberately not
// stuck — and then ends the turn with the connection error, which waits
// on the human: the session enters the stuck queue with reason api_error
// and the error as summary. CLAUDE_CODE_MAX_RETRIES bounds the retries
// (default 10, the backoff doubling from 0.5 s, so minutes; 4 keeps a few
// seconds of retrying) so the test ends in seconds.
func TestClaudeUnreachableIsStuck(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }),
		WithEnv("ANTHROPIC_BASE_URL", closedLoopbackURL(t)), WithEnv("CLAUDE_CODE_MAX_RETRIES", "4"))
	next := a.WatchActivity()
	a.Type("hello")
	// The retries first: error, reason retrying, not stuck (Claude Code
	// shows "retrying in Ns · attempt n/4" above its input).
	var reasons []string
	for {
		ev := next("error")
		r, _ := ev.Data["reason"].(string)
		reasons = append(reasons, r)
		if r != "retrying" {
			break
		}
		if ws := fmt.Sprint(ev.Data["waiting_since"]); ws != "0" {
			t.Fatalf("retrying is stuck (waiting_since %s): %v", ws, ev.Data)
		}
	}
	t.Logf("error events: %q", reasons)
	if len(reasons) < 2 {
		t.Fatalf("error events %q, want retrying before the turn ends", reasons)
	}
	var st ipc.State
	testutil.WaitUntil(t, 90*time.Second, "error with waiting_since", func() bool {
		st = a.State()
		return st.Activity == "error" && st.WaitingSince != 0
	})
	if st.Reason != "api_error" || st.Summary == "" {
		dumpSupLog(t, a)
		t.Fatalf("after the retries: reason %q summary %q, want api_error and the error's message\n%s", st.Reason, st.Summary, a.Screen())
	}
	t.Logf("error: %s %q", st.Reason, st.Summary)
	if out, err := a.SupCmd("queue"); err != nil || !strings.Contains(out, st.Name) {
		t.Fatalf("sup queue does not list the failed session: %s %v", out, err)
	}
}
