package supervisor_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// TestE2ELoad: 100 concurrent clients each make 1000 `state` calls against a
// live supervisor with 0 errors, while the child keeps echoing what is
// injected. Latency percentiles are logged (figures, not assertions: the
// goals live in benchmarks).
func TestE2ELoad(t *testing.T) {
	clients, calls := 100, 1000
	if testing.Short() {
		calls = 100
	}
	r := newRig(t, "")
	pane := r.start("-echo")
	sock := r.sockets()[0]

	var failures atomic.Int64
	var firstErr atomic.Value
	lat := make([][]time.Duration, clients)
	stopEcho := make(chan struct{})
	echoed := make(chan int, 1)
	go func() { echoed <- injectWhileLoaded(t, sock, stopEcho) }()

	var wg sync.WaitGroup
	start := time.Now()
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := ipc.Dial(sock, 5*time.Second)
			if err != nil {
				failures.Add(int64(calls))
				firstErr.CompareAndSwap(nil, err)
				return
			}
			defer c.Close()
			lat[i] = make([]time.Duration, 0, calls)
			for range calls {
				var st ipc.State
				t0 := time.Now()
				err := c.Call(context.Background(), ipc.MethodState, nil, &st)
				lat[i] = append(lat[i], time.Since(t0))
				if err != nil || st.Lifecycle != "running" {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Errorf("state: %v (lifecycle %q)", err, st.Lifecycle))
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopEcho)
	n := <-echoed

	if f := failures.Load(); f != 0 {
		t.Fatalf("%d of %d calls failed; first: %v", f, clients*calls, firstErr.Load())
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration { return all[int(p*float64(len(all)-1))] }
	t.Logf("%d clients × %d state calls in %v (%.0f calls/s): p50 %v, p99 %v, max %v; %d lines echoed meanwhile",
		clients, calls, elapsed.Round(time.Millisecond), float64(len(all))/elapsed.Seconds(), pct(0.5), pct(0.99), all[len(all)-1], n)

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
