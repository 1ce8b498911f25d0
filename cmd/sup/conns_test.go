//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/ipc"
)

// TestVerbDialsOneSocket: `sup state NAME` and `sup trigger --no-wait`
// to one of 12 sessions connect to that session's supervisor once, and a
// waiting `sup trigger` twice (the second for its trigger_progress
// events); no other supervisor is dialled (specs/broker.md, "Finding one
// session"). The supervisors are stand-ins (real ipc servers) in a
// private runtime dir, counting what they accept.
func TestVerbDialsOneSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "sup-conns-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := t.TempDir()
	t.Setenv("SUP_RUNTIME_DIR", dir)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home+"/config")
	t.Setenv("XDG_STATE_HOME", home+"/state")
	sups := make([]*ipctest.Supervisor, 12)
	for i := range sups {
		st := ipc.State{SessionID: fmt.Sprintf("%012d", i+1), Name: fmt.Sprintf("n%02d", i), Document: fmt.Sprintf("/work/n%02d.md", i),
			Lifecycle: "running", SupPID: os.Getpid()}
		sups[i] = ipctest.Serve(t, dir, st)
		sups[i].Server.Handle(ipc.MethodTrigger, func(_ context.Context, req *ipc.Request) (any, error) {
			var p ipc.TriggerParams
			if err := req.DecodeParams(&p); err != nil {
				return nil, err
			}
			r := ipc.TriggerResult{TriggerID: p.TriggerID, ThreadID: "default", Result: ipc.OutcomeAccepted, DeliveryBackend: "pty"}
			if p.Wait {
				r.Result, r.Attempts, r.AckedBy = ipc.OutcomeDelivered, 1, "hook"
			}
			return r, nil
		})
		if err := store.WriteQueueFile(paths.QueueFile(dir, st.SessionID), st.QueueFacts()); err != nil {
			t.Fatal(err)
		}
	}
	total := func() (n int64) {
		for _, s := range sups {
			n += s.Connections()
		}
		return n
	}
	target := sups[6]
	for _, c := range []struct {
		args []string
		want int64
	}{
		{[]string{"state", "n06"}, 1},
		{[]string{"state", "/work/n06.md"}, 1},
		{[]string{"trigger", "--no-wait", "n06", "hello"}, 1},
		{[]string{"trigger", "n06", "hello"}, 2},
	} {
		before, at := total(), target.Connections()
		devnull, _ := os.Open(os.DevNull)
		stdout := os.Stdout
		os.Stdout = devnull
		code := run(context.Background(), append([]string{"sup"}, c.args...))
		os.Stdout = stdout
		devnull.Close()
		if code != 0 {
			t.Fatalf("sup %v exited %d", c.args, code)
		}
		if got, there := total()-before, target.Connections()-at; got != c.want || there != c.want {
			t.Errorf("sup %v: %d connections (%d to its session), want %d, all to it", c.args, got, there, c.want)
		}
	}
}
