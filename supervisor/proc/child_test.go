//go:build linux

package proc

import (
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/testutil"
)

// startFake starts the fakeagent with args behind a pty, pumping its
// output into out, and ends it when the test ends.
func startFake(t *testing.T, out *testutil.Buffer, args ...string) *Child {
	t.Helper()
	fake := testutil.BuildPackage(t, "./testdata/fakeagent")
	c, err := StartChild(append([]string{fake}, args...), t.TempDir(), nil, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	go c.Pump(out, func([]byte) {})
	go c.Wait()
	t.Cleanup(func() {
		select {
		case <-c.Done(): // reaped: its pid may belong to another process now
		default:
			c.Terminate(0)
		}
	})
	return c
}

// TestChildExitStatus: a child's exit code and its death by a signal are
// reported as sup reports them (128+n and the signal's name), after its
// last output was pumped.
func TestChildExitStatus(t *testing.T) {
	var out testutil.Buffer
	c := startFake(t, &out, "-exit", "3")
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not end within 10s")
	}
	if code, sig := c.Exit(); code != 3 || sig != "" {
		t.Fatalf("Exit() = %d %q, want 3 and no signal", code, sig)
	}
	if !strings.Contains(out.String(), "fakeagent ready") {
		t.Fatalf("pumped %q, want the child's output", out.String())
	}

	c = startFake(t, &out, "-signal", "KILL")
	<-c.Done()
	if code, sig := c.Exit(); code != 128+9 || sig != "SIGKILL" {
		t.Fatalf("Exit() = %d %q, want 137 SIGKILL", code, sig)
	}
}

// TestChildTerminate: Terminate ends a child that ignores SIGTERM with
// SIGKILL once the grace is over, and returns once it is reaped.
func TestChildTerminate(t *testing.T) {
	var out testutil.Buffer
	c := startFake(t, &out, "-ignore-term")
	testutil.WaitUntil(t, 10*time.Second, "the child to be ready", func() bool { return strings.Contains(out.String(), "fakeagent ready") })
	start := time.Now()
	c.Terminate(200 * time.Millisecond)
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("Terminate returned after %v, before the grace was over", d)
	}
	if _, sig := c.Exit(); sig != "SIGKILL" {
		t.Fatalf("ended by %q, want SIGKILL after the ignored SIGTERM", sig)
	}
	if !strings.Contains(out.String(), "fakeagent got SIGTERM, ignoring") {
		t.Fatalf("pumped %q: the child never saw the SIGTERM", out.String())
	}
}
