//go:build linux

package conformance

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// Config is sup's config.yaml for the suite's supervisors: quick trigger
// acks through fakeagent's marker, a halt at the first failure, and a
// connection limit the "too many clients" case can reach.
const Config = `activity: {quiet_window: 1s}
crash: {halt_after: 1}
socket: {max_clients: 6}
trigger:
  recheck: 100ms
  ack_timeout: 3s
  retry_backoff: 100ms
  ack_marker: "ACK_TRIGGER:{id}"
`

// StartSupervisors starts one live supervisor for each of the suite's
// sockets (live, exited, halted) in a private tmux server and returns
// their paths by socket name. Everything is cleaned up with the test.
func StartSupervisors(t testing.TB) map[string]string {
	t.Helper()
	s := testutil.NewRig(t, Config)
	s.Start("doc", "-ready", "-raw", "-ack", "-bracketed")
	s.Start("exited", "-exit", "0")
	s.Start("halted", "-exit", "1")
	socks := map[string]string{"live": s.Socket("doc"), "exited": s.Socket("exited"), "halted": s.Socket("halted")}
	waitLifecycle(t, socks["exited"], "exited")
	waitLifecycle(t, socks["halted"], "halted")
	return socks
}

func waitLifecycle(t testing.TB, sock, want string) {
	t.Helper()
	testutil.WaitUntil(t, 10*time.Second, "lifecycle "+want+" at "+sock, func() bool {
		return ipctest.State(t, sock).Lifecycle == want
	})
}
