//go:build linux

package supervisor

import (
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// TestUnitGatesHeldScreen (review of issue 29, finding 6): while the
// watcher holds classification (a desynced screen read again), the
// verdict from before the flood is not trusted: a ready agent is busy
// and prompting to the desk, with why; the hold's end gives the verdict
// back. The hold is a fact of the snapshot, and setting it again changes
// nothing.
func TestUnitGatesHeldScreen(t *testing.T) {
	o := newStateOwner(&plan.Plan{}, pty.Winsize{}, "")
	o.change(func() { o.run.lifecycle, o.run.child = LifecycleRunning, &proc.Child{} })
	agentHandle{o}.observe(activity.Signal{Source: activity.SourceHook, Rule: "hook:Stop", Activity: activity.Ready, At: time.Now()})
	s := &Session{owner: o}
	p := deskPort{s}
	if g := p.gates(time.Now()); g.AgentBusy || g.Prompting {
		t.Fatalf("ready, not held: %+v", g)
	}
	if !o.setHeld(true) || o.setHeld(true) {
		t.Fatal("setHeld(true) did not report exactly one change")
	}
	g := p.gates(time.Now())
	if !g.AgentBusy || !g.Prompting || g.AgentWhy != "the screen is not whole yet (a flood is being read again)" {
		t.Fatalf("held: %+v", g)
	}
	if !o.load().held {
		t.Fatal("the snapshot does not say held")
	}
	o.setHeld(false)
	if g := p.gates(time.Now()); g.AgentBusy || g.Prompting || g.AgentWhy != "" {
		t.Fatalf("the hold ended: %+v", g)
	}
}
