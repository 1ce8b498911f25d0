//go:build linux

package proc

import (
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// startFake starts the fakeagent with args behind a pty, pumping its
// output into out, and ends it when the test ends.
func startFake(t *testing.T, out *testutil.Buffer, args ...string) *Child {
	t.Helper()
	fake := testutil.FakeAgent(t)
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

// TestChildTerminate: Terminate ends a child that ignores SIGHUP and
// SIGTERM with SIGKILL once the grace is over, and returns once it is
// reaped, saying SIGKILL ended it.
func TestChildTerminate(t *testing.T) {
	var out testutil.Buffer
	c := startFake(t, &out, "-ignore-term", "-ignore-hup")
	testutil.WaitUntil(t, 10*time.Second, "the child to be ready", func() bool { return strings.Contains(out.String(), "fakeagent ready") })
	start := time.Now()
	by := c.Terminate(200 * time.Millisecond)
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("Terminate returned after %v, before the grace was over", d)
	}
	if _, sig := c.Exit(); sig != "SIGKILL" || by != "SIGKILL" {
		t.Fatalf("ended by %q (Terminate says %q), want SIGKILL after the ignored SIGHUP and SIGTERM", sig, by)
	}
	for _, want := range []string{"fakeagent got SIGHUP, ignoring", "fakeagent got SIGTERM, ignoring"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("pumped %q: the child never printed %q", out.String(), want)
		}
	}
}

// TestChildTerminateOrder: SIGHUP goes first, and a child that ends of it
// goes at once, long before the grace; one that ignores only the hangup
// ends on the SIGTERM that follows within HupWait.
func TestChildTerminateOrder(t *testing.T) {
	var out testutil.Buffer
	c := startFake(t, &out)
	testutil.WaitUntil(t, 10*time.Second, "the child to be ready", func() bool { return strings.Contains(out.String(), "fakeagent ready") })
	start := time.Now()
	if by := c.Terminate(10 * time.Second); by != "SIGHUP" {
		t.Fatalf("Terminate says %q ended it, want SIGHUP", by)
	}
	if d := time.Since(start); d > 8*time.Second { // the grace is 10 s
		t.Fatalf("a child that dies of SIGHUP took %v", d)
	}
	if _, sig := c.Exit(); sig != "SIGHUP" {
		t.Fatalf("the child died of %q, want SIGHUP", sig)
	}

	var out2 testutil.Buffer
	c = startFake(t, &out2, "-ignore-hup")
	testutil.WaitUntil(t, 10*time.Second, "the child to be ready", func() bool { return strings.Contains(out2.String(), "fakeagent ready") })
	start = time.Now()
	if by := c.Terminate(10 * time.Second); by != "SIGTERM" {
		t.Fatalf("Terminate says %q ended it, want SIGTERM", by)
	}
	if d := time.Since(start); d > HupWait+time.Second {
		t.Fatalf("the SIGTERM came after %v, want about %v", d, HupWait)
	}
	if !strings.Contains(out2.String(), "fakeagent got SIGHUP, ignoring") || !strings.Contains(out2.String(), "fakeagent got SIGTERM") {
		t.Fatalf("pumped %q", out2.String())
	}
}
