//go:build linux

package supervisor_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EIdleConnectionsCannotLockOut: a buggy client holds 200 idle
// connections on one supervisor (more than its 128 slots). A hook, `sup
// state` and `sup stop` still succeed at once — each closes the oldest idle
// connection for its slot (specs/ipc.md, "Connection slots") — instead of
// waiting out the idle timeout.
func TestE2EIdleConnectionsCannotLockOut(t *testing.T) {
	t.Parallel()
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
	st := r.stateVerb("doc") // a process of its own, as the claim is
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
	// (the hook has its own 250 ms budget and would have been dropped).
	if stateTook > 5*time.Second || stopTook > 5*time.Second {
		t.Fatalf("sup state took %v, sup stop %v: they waited for a slot", stateTook, stopTook)
	}
	t.Logf("with 200 idle connections held: hook %v, sup state %v, sup stop %v", took, stateTook, stopTook)
}

// flood runs testdata/flood: one process sending n `trigger`s with wait
// on n connections to sock (args: "loop" keeps sending). It returns once the process reported what its
// calls got, with a function that makes it exit (its connections then
// closed by the kernel, without a word).
func (r *rig) flood(sock string, n int, args ...string) (report string, exit func()) {
	r.t.Helper()
	cmd := exec.Command(testutil.BuildPackage(r.t, "./testdata/flood"), append([]string{sock, strconv.Itoa(n)}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	done := false
	exit = func() {
		if !done {
			done = true
			stdin.Close()
			cmd.Wait()
		}
	}
	r.t.Cleanup(func() {
		cmd.Process.Kill()
		exit()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		r.t.Fatalf("flood: %v", err)
	}
	return strings.TrimSpace(line), exit
}

// within runs f and fails the test when it takes longer than d: a generous
// bound on a shared CI machine, but far below the minutes a lock-out took.
// The goal is 1 s; the times are logged.
// slotBound is within's bound for the lock-out test: the 1 s,
// made generous (5 s) for a loaded CI machine — under a load average of
// 500 on 2 cores `sup stop` once took 4.7 s; unloaded, 0.14 s.
const slotBound = 5 * time.Second

func within(t *testing.T, what string, d time.Duration, f func()) time.Duration {
	t.Helper()
	start := time.Now()
	f()
	took := time.Since(start)
	if took > d {
		t.Fatalf("%s took %v, over %v: it waited for a slot", what, took, d)
	}
	return took
}

// TestE2EWaitingTriggersCannotLockOut: one process sends 140 triggers
// with wait to a busy agent (each waits up to max_busy_wait, 10 min), more
// than the supervisor's 128 slots. Only MaxWaitingPerPeer (16) of them
// wait; the rest are answered TOO_MANY_CLIENTS and closed at once. `sup
// state` and a hook are answered within a second beside them; once the
// process exits, its waiting calls are cancelled (the triggers stay
// queued, as a dropped caller's do) and every slot is free within a
// second; a second flood does not stop `sup stop` either (specs/ipc.md,
// "Connection slots").
func TestE2EWaitingTriggersCannotLockOut(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	r.start("-echo")
	sock := r.sockets()[0]
	r.hook(`{"session_id":"conv-1","hook_event_name":"UserPromptSubmit","prompt":"a long turn"}`)

	report, exit := r.flood(sock, 140)
	if report != "waiting 16 refused 124 other 0" {
		t.Fatalf("flood of 140 waiting triggers: %q, want 16 waiting, 124 refused", report)
	}
	var st ipc.State
	stateTook := within(t, "sup state beside 16 waiting triggers", slotBound, func() { st = r.stateVerb("doc") })
	hookTook := within(t, "sup hook beside 16 waiting triggers", slotBound, func() {
		r.hook(`{"session_id":"conv-1","hook_event_name":"Stop","last_assistant_message":"done"}`)
	})
	if st.Activity != "busy" || r.state("doc").Activity != "ready" {
		t.Fatalf("the hooks did not land: activity %q before Stop, want busy, then ready", st.Activity)
	}

	exit()
	// Every slot free within a second: 128 connections of this process
	// (which may evict nothing of its own) are all admitted.
	freeTook := within(t, "every slot free after the flood exited", slotBound, func() {
		testutil.WaitUntil(t, slotBound, "128 connections admitted", func() bool { return admitAll(t, sock, 128) })
	})

	_, exit = r.flood(sock, 140)
	defer exit()
	stopTook := within(t, "sup stop beside 16 waiting triggers", slotBound, func() {
		if out := r.mustSup("stop", "doc"); !strings.Contains(out, "stopped") {
			t.Fatalf("sup stop: %q", out)
		}
	})
	testutil.WaitUntil(t, 10*time.Second, "the supervisor to exit", func() bool { return !testutil.ProcessAlive(st.SupPID) })
	t.Logf("beside 140 waiting triggers: sup state %v, hook %v, sup stop %v; slots free %v after the flood exited",
		stateTook, hookTook, stopTook, freeTook)
}

// admitAll reports whether n connections to sock are all admitted (each
// answers hello), closing them again.
func admitAll(t *testing.T, sock string, n int) bool {
	t.Helper()
	var cs []*ipc.Client
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	for range n {
		c, err := ipc.Dial(sock, time.Second)
		if err != nil {
			return false
		}
		cs = append(cs, c)
		var h ipc.HelloResult
		if err := c.Call(context.Background(), ipc.MethodHello, nil, &h); err != nil {
			return false
		}
	}
	return true
}

// BenchmarkWaitingFloodLatency: the figure for issue 28 — with one process
// holding 500 waiting calls to a busy agent, the latency of `state` and of
// a hook, each on its own connection as sup's clients make them (goal: p99
// ≤ 50 ms). One op is one state call and one hook. hold: the process sent
// 500 `trigger`s with wait on 500 connections and keeps them (16 wait, the
// rest were refused); retry: it also keeps 500 more outstanding, sending
// each refused one again at once on a new connection — a connect storm
// from one process, the hardest it can press (the kernel's accept backlog
// is then often full: Dial retries EAGAIN).
//
//	go test ./supervisor -run '^$' -bench WaitingFloodLatency -benchtime 500x
func BenchmarkWaitingFloodLatency(b *testing.B) {
	for _, mode := range []string{"hold", "retry"} {
		b.Run(mode, func(b *testing.B) {
			var args []string
			if mode == "retry" {
				args = []string{"loop"}
			}
			benchFlood(b, args)
		})
	}
}

func benchFlood(b *testing.B, floodArgs []string) {
	r := newRig(b, "")
	r.start("-echo")
	sock := r.sockets()[0]
	r.hook(`{"session_id":"conv-1","hook_event_name":"UserPromptSubmit","prompt":"a long turn"}`)
	_, exit := r.flood(sock, 500, floodArgs...)
	defer exit()
	time.Sleep(500 * time.Millisecond) // a retry loop under way
	call := func(method string, params any) time.Duration {
		start := time.Now()
		c, err := ipc.Dial(sock, 5*time.Second)
		if err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		defer c.Close()
		var res any
		if err := c.Call(context.Background(), method, params, &res); err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		return time.Since(start)
	}
	hook := ipc.HookParams{Agent: "claude", Event: "UserPromptSubmit", SessionID: "conv-1", Prompt: "still busy"}
	var states, hooks []time.Duration
	for b.Loop() {
		states = append(states, call(ipc.MethodState, nil))
		hooks = append(hooks, call(ipc.MethodHook, hook))
	}
	p := func(ds []time.Duration, q float64) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
	}
	b.ReportMetric(p(states, 0.5), "state_p50_ms")
	b.ReportMetric(p(states, 0.99), "state_p99_ms")
	b.ReportMetric(p(hooks, 0.5), "hook_p50_ms")
	b.ReportMetric(p(hooks, 0.99), "hook_p99_ms")
}

// TestE2ESubscriptionFloodCannotLockOutOperator: the attack review's
// subflood — one process opens 112 `subscribe` connections (subscriptions
// have no idle timeout) — held the whole budget, and the operator's
// `answer`, `trigger`, `inject` failed with TOO_MANY_CLIENTS for as long as
// it liked. Now subscriptions count against the process's 16 held
// connections, so the operator's waiting calls still get in beside them.
func TestE2ESubscriptionFloodCannotLockOutOperator(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	r.start("-echo")
	sock := r.sockets()[0]

	report, exit := r.flood(sock, 112, "subscribe")
	defer exit()
	if report != "subscribed 16 refused 96 other 0" {
		t.Fatalf("flood of 112 subscriptions from one process: %q, want 16 subscribed, 96 refused", report)
	}
	var res ipc.TriggerResult
	took := within(t, "an operator's trigger beside 16 subscriptions", slotBound, func() {
		if err := r.call(ipc.MethodTrigger, ipc.TriggerParams{TriggerID: "op-1", Prompt: "through the subscribers"}, &res); err != nil {
			t.Fatalf("operator's trigger: %v", err)
		}
	})
	injectTook := within(t, "sup inject beside 16 subscriptions", slotBound, func() {
		r.mustSup("inject", "doc", "echo injected")
	})
	t.Logf("beside 16 subscriptions (96 refused): trigger %v (%s), inject %v", took, res.Result, injectTook)
}
