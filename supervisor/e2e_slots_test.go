//go:build linux

package supervisor_test

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EIdleConnectionsCannotLockOut: a buggy client holds 200 idle
// connections on one supervisor (more than its 128 slots). A hook, `sup
// state` and `sup stop` still succeed at once — each closes the oldest idle
// connection for its slot (specs/ipc.md, "Connection slots") — instead of
// waiting out the idle timeout.
func TestE2EIdleConnectionsCannotLockOut(t *testing.T) {
	r := newRig(t, "")
	r.start("-echo")
	sock := r.sockets()[0]

	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	for range 200 {
		var c net.Conn
		var err error
		// EAGAIN: the accept backlog is full while the server refuses the
		// ones over its limit; a client would retry too.
		for try := 0; try < 200; try++ {
			if c, err = net.Dial("unix", sock); !errors.Is(err, syscall.EAGAIN) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("connection %d: %v", len(held)+1, err)
		}
		held = append(held, c)
	}
	// Past EvictIdleAfter every admitted one is idle; the 72 over the limit
	// were refused (TOO_MANY_CLIENTS) when there was nothing to evict yet.
	time.Sleep(ipc.DefaultEvictIdleAfter + 100*time.Millisecond)

	took := r.hook(`{"session_id":"conv-1","hook_event_name":"UserPromptSubmit","prompt":"through the crowd"}`)
	start := time.Now()
	st := r.state("doc")
	stateTook := time.Since(start)
	if st.Activity != "busy" {
		t.Fatalf("the hook did not land (took %v): activity %q, want busy", took, st.Activity)
	}
	start = time.Now()
	if out := r.mustSup("stop", "doc"); !strings.Contains(out, "stopped") {
		t.Fatalf("sup stop: %q", out)
	}
	stopTook := time.Since(start)
	testutil.WaitUntil(t, 10*time.Second, "the supervisor to exit", func() bool { return !testutil.ProcessAlive(st.SupPID) })
	// Generous bounds: "at once" means no wait for the 30 s idle timeout
	// (the hook has its own 90 ms budget and would have been dropped).
	if stateTook > 5*time.Second || stopTook > 5*time.Second {
		t.Fatalf("sup state took %v, sup stop %v: they waited for a slot", stateTook, stopTook)
	}
	t.Logf("with 200 idle connections held: hook %v, sup state %v, sup stop %v", took, stateTook, stopTook)
}
