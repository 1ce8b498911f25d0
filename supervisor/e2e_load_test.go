//go:build linux

package supervisor_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// loadWhileEchoing: 100 concurrent clients each make 1000 `state` calls
// (200 against a race-built one) against a live supervisor with 0 errors, while the child keeps echoing
// what is injected, every line back in order. It returns the latencies
// (figures, not assertions: the goals live in benchmarks). The fault suite
// runs it after a burst of garbage (TestE2EFaultGarbageThenLoad).
func loadWhileEchoing(t *testing.T, r *rig, pane string) testutil.LoadResult {
	t.Helper()
	clients, calls := 100, 1000
	if testing.Short() {
		calls = 100
	} else if testutil.Race() {
		// A race-built supervisor serves each call several times dearer:
		// 100,000 of them made TestE2EFaultGarbageThenLoad the package's
		// longest test (44 s, alone). 100 clients at once still load it;
		// the throughput figure is ipc's TestLoad and the bench's.
		calls = 200
	}
	sock := r.sockets()[0]

	stopEcho := make(chan struct{})
	echoed := make(chan int, 1)
	go func() { echoed <- injectWhileLoaded(t, sock, stopEcho) }()
	res := testutil.RunLoad(clients, calls, func() (func() error, func(), error) {
		c, err := ipc.Dial(sock, 5*time.Second)
		if err != nil {
			return nil, nil, err
		}
		call := func() error {
			var st ipc.State
			if err := c.Call(context.Background(), ipc.MethodState, nil, &st); err != nil {
				return err
			}
			if st.Lifecycle != "running" {
				return fmt.Errorf("lifecycle %q, want running", st.Lifecycle)
			}
			return nil
		}
		return call, func() { c.Close() }, nil
	})
	close(stopEcho)
	n := <-echoed
	if res.Errors != 0 {
		t.Fatalf("%d of %d calls failed; first: %v", res.Errors, clients*calls, res.FirstErr)
	}
	t.Logf("%v; %d lines echoed meanwhile", res, n)

	// Every injected line came back, in order, while the socket was busy.
	if n == 0 {
		t.Fatal("no line was injected during the load")
	}
	r.tm.WaitFor(t, pane, fmt.Sprintf("got: line %d", n-1), 5*time.Second)
	text := r.tm.CaptureAll(pane) + "\n"
	last := -1
	for i := range n {
		idx := strings.Index(text, fmt.Sprintf("got: line %d\n", i))
		if idx < 0 || idx < last {
			t.Fatalf("echo of line %d missing or out of order (of %d)", i, n)
		}
		last = idx
	}
	return res
}

// injectWhileLoaded injects numbered lines every 20 ms until stop, and
// returns how many it sent.
func injectWhileLoaded(t *testing.T, sock string, stop <-chan struct{}) int {
	c, err := ipc.Dial(sock, 5*time.Second)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer c.Close()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return i
		case <-tick.C:
		}
		text := fmt.Sprintf("line %d", i)
		if err := c.Call(context.Background(), ipc.MethodInject, ipc.InjectParams{Text: &text, Submit: true}, nil); err != nil {
			t.Errorf("inject %d: %v", i, err)
			return i
		}
	}
}
