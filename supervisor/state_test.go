//go:build linux

package supervisor

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// checkSnapshot asserts doc.go's snapshot invariants on n, read after
// prev by the same reader (nil: its first read); signal is the change
// signal the reader took before it loaded prev.
func checkSnapshot(prev, n *snapshot, signal <-chan struct{}) error {
	if prev != nil {
		switch {
		case n.version < prev.version:
			return fmt.Errorf("version %d read after %d", n.version, prev.version)
		case n.version >= prev.version+2 && !closed(signal):
			// Version prev+1's publication poked before prev+2 was stored.
			return fmt.Errorf("version %d read, and the change signal taken before version %d was loaded is still open", n.version, prev.version)
		}
	}
	return checkFacts(n.run.lifecycle, n.st.Activity, n.st.Reason, n.open.id, childPID(n.run), 0)
}

func childPID(f runFacts) int {
	if f.child == nil {
		return 0
	}
	return f.child.PID()
}

// checkFacts is the invariants a `state` reply shows: the lifecycle, the
// activity, the prompt id and the child's pid (options: how many
// prompt_options it lists).
func checkFacts(lifecycle string, act activity.Activity, reason, promptID string, pid, options int) error {
	switch {
	case !agentRuns(lifecycle) && (act == activity.Busy || act == activity.NeedsConfirmation):
		return fmt.Errorf("lifecycle %s with activity %s", lifecycle, act)
	case promptID != "" && !activity.Prompting(act, reason):
		return fmt.Errorf("prompt id %s with activity %s (reason %s)", promptID, act, reason)
	case promptID != "" && !agentRuns(lifecycle):
		return fmt.Errorf("prompt id %s in lifecycle %s", promptID, lifecycle)
	case lifecycle == LifecycleRunning && pid <= 0:
		return fmt.Errorf("lifecycle running with no child (pid %d)", pid)
	case promptID == "" && options > 0:
		return fmt.Errorf("%d prompt options with no prompt id", options)
	}
	return nil
}

func checkState(st ipc.State) error {
	return checkFacts(st.Lifecycle, activity.Activity(st.Activity), st.Reason, st.PromptID, st.PID, len(st.PromptOptions))
}

// TestSessionStateSnapshotStress reads the session's state as often as
// it can — the snapshot itself, State() in process, and `state` through a
// real control socket — while a real child (the fakeagent, redrawing a
// spinner) is given a permission prompt by a hook, then killed or
// restarted, in a loop: no read may break doc.go's invariants (a
// lifecycle with an activity that never coexist, a prompt id without a
// prompt, a version going back or published without its change signal).
func TestSessionStateSnapshotStress(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a stress test")
	}
	r := newSessionRig(t, "", "-spinner")
	s := r.s

	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := ipc.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := ipc.NewServer(ipc.ServerConfig{Version: Version, Events: Events})
	for name, h := range newAPI(s, srv).methods() {
		srv.Handle(name, h)
	}
	go srv.Serve(ln)                                // Serve returns at Shutdown.
	t.Cleanup(func() { srv.Shutdown(time.Second) }) // Best effort: the test is over.

	const (
		wantReads  = 1_000_000 // snapshot reads
		wantCycles = 20        // kills and restarts of the child
		wantSocket = 500       // state calls through the socket
		limit      = 3 * time.Minute
	)
	var (
		stop                         = make(chan struct{})
		snapReads, stateReads, sockN atomic.Int64
		fail                         sync.Once
		failure                      atomic.Value
		wg                           sync.WaitGroup
	)
	var tornN atomic.Int64
	torn := func(err error) {
		tornN.Add(1)
		fail.Do(func() { failure.Store(err) })
	}
	reader := func(read func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !closed(stop) {
				if err := read(); err != nil {
					torn(err) // counted; the reads go on
				}
				// The in-process readers spin: without a yield they keep
				// the socket's goroutines waiting for a whole time slice
				// at each hop of a call.
				runtime.Gosched()
			}
		}()
	}
	var (
		prev   *snapshot
		signal <-chan struct{}
	)
	reader(func() error {
		for range 100 {
			ch := s.changes.wait() // before the load, as a waiter does
			n := s.owner.load()
			err := checkSnapshot(prev, n, signal)
			prev, signal = n, ch
			if err != nil {
				return err
			}
		}
		snapReads.Add(100)
		return nil
	})
	reader(func() error {
		stateReads.Add(1)
		if err := checkState(s.State()); err != nil {
			return fmt.Errorf("State(): %w", err)
		}
		return nil
	})
	for range 2 {
		c, err := ipc.Dial(sock, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		reader(func() error {
			var st ipc.State
			if err := c.Call(context.Background(), ipc.MethodState, nil, &st); err != nil {
				return fmt.Errorf("state through the socket: %w", err)
			}
			sockN.Add(1)
			if err := checkState(st); err != nil {
				return fmt.Errorf("state through the socket: %w", err)
			}
			return nil
		})
	}

	start := time.Now()
	cycles := 0
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for ; (cycles < wantCycles || snapReads.Load() < wantReads || sockN.Load() < wantSocket) && ctx.Err() == nil; cycles++ {
		var child int
		waitFor(ctx, s.owner, func(n *snapshot) bool {
			child = childPID(n.run)
			return n.run.lifecycle == LifecycleRunning && child > 0
		})
		// A prompt, so that a prompt id is open when the child goes.
		s.hook(ipc.HookParams{Agent: "claude", Event: "PermissionRequest", ToolName: "Bash", Command: fmt.Sprintf("rm -r build%d", cycles)})
		if cycles%2 == 0 {
			// Killed: the crash policy schedules a restart (or halts);
			// resume brings it back at once either way.
			syscall.Kill(child, syscall.SIGKILL) // Best effort: it may be gone already.
			waitFor(ctx, s.owner, func(n *snapshot) bool { return n.run.lifecycle != LifecycleRunning })
			if _, err := s.ask(ctx, control{kind: ctrlResume}); err != nil {
				t.Fatalf("cycle %d: resume: %v", cycles, err)
			}
		} else if _, err := s.ask(ctx, control{kind: ctrlRestart, fresh: true}); err != nil {
			t.Fatalf("cycle %d: restart: %v", cycles, err)
		}
	}
	close(stop)
	wg.Wait()
	took := time.Since(start)
	t.Logf("%d cycles in %s: %d snapshot reads (%.0f/s), %d State() reads, %d socket state reads (%.0f/s)",
		cycles, took.Round(time.Millisecond), snapReads.Load(), float64(snapReads.Load())/took.Seconds(),
		stateReads.Load(), sockN.Load(), float64(sockN.Load())/took.Seconds())
	if err, _ := failure.Load().(error); err != nil {
		t.Fatalf("%d torn reads; the first: %v", tornN.Load(), err)
	}
	if cycles < wantCycles || snapReads.Load() < wantReads || sockN.Load() < wantSocket {
		t.Fatalf("only %d cycles, %d snapshot reads and %d socket reads within %s (want %d, %d and %d)",
			cycles, snapReads.Load(), sockN.Load(), limit, wantCycles, wantReads, wantSocket)
	}
}

// waitFor waits until a snapshot of o satisfies cond, on the snapshots'
// change signal, or until ctx ends (the caller's loop then stops on
// ctx.Err).
func waitFor(ctx context.Context, o *stateOwner, cond func(*snapshot) bool) {
	for {
		changed := o.changes.wait()
		n := o.load()
		if cond(n) {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// TestUnitStateOwnerReadsChangeNothing: the open prompt's id is in the
// snapshot the change that opened it published; reads return that
// snapshot and publish nothing; the change signal closes on the next
// version only.
func TestUnitStateOwnerReadsChangeNothing(t *testing.T) {
	t.Parallel()
	o := newStateOwner(&plan.Plan{}, pty.Winsize{}, "")
	a := agentHandle{o}
	o.change(func() { o.run.lifecycle, o.run.child = LifecycleRunning, &proc.Child{} })
	t0 := time.Now()
	a.observe(activity.Signal{Source: activity.SourceHook, Rule: "hook:PermissionRequest", Activity: activity.NeedsConfirmation,
		Reason: "permission", Summary: "Bash: ls", Stuck: true, At: t0})
	changed := o.changes.wait()
	n := o.load()
	if n.open.id == "" {
		t.Fatal("no prompt id in the snapshot the hook's change published")
	}
	for range 100 {
		a.state(time.Now())
		a.withPrompt(time.Now())
		n.view(time.Now())
		n.progress()
	}
	if o.load() != n || closed(changed) {
		t.Fatalf("reads published version %d after %d", o.load().version, n.version)
	}
	if a.setDraft(""); o.load() != n {
		t.Fatal("an unchanged draft published a version")
	}
	a.setDraft("half a line")
	if m := o.load(); m.version != n.version+1 || !closed(changed) || m.open.id != n.open.id {
		t.Fatalf("a draft: version %d (want %d), signal closed %v, id %s (want %s)", m.version, n.version+1, closed(changed), m.open.id, n.open.id)
	}
}

// TestUnitStateBetweenRuns: a lifecycle without an agent presents the
// dead agent's dialog as unknown, with no prompt open; the tracker keeps
// it, and a running agent presents it again.
func TestUnitStateBetweenRuns(t *testing.T) {
	t.Parallel()
	o := newStateOwner(&plan.Plan{}, pty.Winsize{}, "")
	a := agentHandle{o}
	o.change(func() { o.run.lifecycle, o.run.child = LifecycleRunning, &proc.Child{} })
	a.observe(activity.Signal{Source: activity.SourceHook, Rule: "hook:PermissionRequest", Activity: activity.NeedsConfirmation,
		Reason: "permission", Stuck: true, At: time.Now()})
	for _, l := range []string{LifecycleRestarting, LifecycleExited, LifecycleHalted, LifecycleStopped} {
		before, after := o.change(func() { o.run.lifecycle = l })
		if after.st.Activity != activity.Unknown || after.st.Reason != l || after.open.id != "" {
			t.Fatalf("%s: %s (%s), prompt %q", l, after.st.Activity, after.st.Reason, after.open.id)
		}
		if !after.presents(before) {
			t.Fatalf("%s: presented as %s (%s) before, and no change said", l, before.st.Activity, before.st.Reason)
		}
	}
	o.change(func() { o.run.lifecycle = LifecycleRunning })
	if n := o.load(); n.st.Activity != activity.NeedsConfirmation || n.open.id == "" {
		t.Fatalf("running again: %s, prompt %q", n.st.Activity, n.open.id)
	}
}

// BenchmarkStateSnapshotRead is one reader's read of the facts `state`
// and the desk's gates use (load, then the view at now), while another
// goroutine changes them (a key, the draft) as fast as it can: readers
// never wait for the owner.
func BenchmarkStateSnapshotRead(b *testing.B) {
	o := newStateOwner(&plan.Plan{}, pty.Winsize{}, "")
	a := agentHandle{o}
	stop := make(chan struct{})
	go func() {
		for i := 0; !closed(stop); i++ {
			a.key(time.Now(), false)
			a.setDraft(strconv.Itoa(i % 2))
		}
	}()
	defer close(stop)
	now := time.Now()
	b.ResetTimer()
	for range b.N {
		n := o.load()
		_ = n.view(now)
	}
}
