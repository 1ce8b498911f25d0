//go:build linux

package supervisor

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/foreground"
	"github.com/sup-tmux/sup/supervisor/proc"
)

// newUnitSession is a Session that is never run: its state owner, its
// change signal and its desk port are real, and the test plays the run
// loop's and the watcher's updates itself.
func newUnitSession(t *testing.T) *Session {
	t.Helper()
	dir := t.TempDir()
	for path, content := range map[string]string{
		"config/sup/config.yaml":         sessionConfig,
		"config/sup/profiles/shell.yaml": "envelope: true\nbusy_window: 100ms\n",
		"doc.md":                         "# a session that is never run\n",
	} {
		path = filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o := plan.Options{
		Document: "doc.md", Profile: "shell", InvocationDir: dir, Command: []string{"true"},
		Environ: []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
			"XDG_STATE_HOME=" + filepath.Join(dir, "state")},
	}
	pl, err := plan.Resolve(o)
	if err != nil {
		t.Fatal(err)
	}
	return NewSession(pl, o, nil, io.Discard, pty.Winsize{Rows: 24, Cols: 80}, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// TestUnitChangedOnEveryPublication: a desk wait — a trigger held because
// the agent is starting, though a hook already said ready — proceeds as
// soon as the spawn publishes starting→running, on the change signal and
// not the desk's recheck; and every kind of update wakes a waiter.
func TestUnitChangedOnEveryPublication(t *testing.T) {
	s := newUnitSession(t)
	p := deskPort{s}
	s.observe(activity.Signal{Source: activity.SourceHook, Rule: "hook:Stop", Activity: activity.Ready, Reason: "idle", At: time.Now()})
	if g := p.Facts(time.Now()).Gates; !g.AgentBusy || g.AgentWhy != "the agent is starting" {
		t.Fatalf("before the spawn: gates %+v, want held: the agent is starting", g)
	}

	const recheck = 5 * time.Second // the desk's default recheck: the wait must not need it
	proceeded := make(chan error, 1)
	waiting := make(chan struct{})
	go func() {
		// The desk's wait (desk.Run): the signal, then the look, then the
		// select with the recheck.
		for first := true; ; first = false {
			changed := p.Changed()
			if !p.Facts(time.Now()).Gates.AgentBusy {
				proceeded <- nil
				return
			}
			if first {
				close(waiting)
			}
			select {
			case <-changed:
			case <-time.After(recheck):
				proceeded <- errNoWake
				return
			}
		}
	}()
	<-waiting
	// spawn.go's update: the child and running in one change.
	s.runChanged(s.owner.change(func() {
		r := &s.owner.run
		r.child, r.spawning = &proc.Child{}, false
		r.spawns++
		r.lifecycle = LifecycleRunning
	}))
	if err := <-proceeded; err != nil {
		t.Fatal(err)
	}

	// Every update that publishes wakes a waiter, whatever it changed. The
	// stall watch's first look, then a changed screen: the next look that
	// agrees is progress (explain's progress.at), though the activity stays.
	s.agent.stall(time.Now(), time.Hour, 1, "")
	s.agent.stall(time.Now(), time.Hour, 2, "")
	for name, update := range map[string]func(){
		"key":            func() { s.agent.key(time.Now(), false) },
		"focus":          func() { s.agent.setFocused(true, time.Now()) },
		"foreground":     func() { s.agent.noteForeground(lineLook{facts: foreground.Facts{Pgrp: 7, Wait: foreground.Reading}}) },
		"lifecycle":      func() { s.setLifecycle(LifecycleRunning) },
		"screen verdict": func() { s.noteVerdict(screenVerdict{Rule: "idle", Activity: activity.Ready, At: time.Now()}) },
		"stall progress": func() { s.agent.stall(time.Now(), time.Hour, 2, "") }, // the look that confirms the change
	} {
		changed := p.Changed()
		before := s.owner.load().version
		update()
		if s.owner.load().version == before {
			t.Fatalf("%s: published nothing", name)
		}
		if !closed(changed) {
			t.Fatalf("%s: published version %d and the change signal is still open", name, s.owner.load().version)
		}
	}
	// A look that finds what the last one found publishes nothing: an idle
	// program's look must wake no reader of the change signal.
	before := s.owner.load().version
	s.agent.noteForeground(lineLook{facts: foreground.Facts{Pgrp: 7, Wait: foreground.Reading}})
	if v := s.owner.load().version; v != before {
		t.Fatalf("an unchanged foreground look published version %d (was %d)", v, before)
	}
	if at, what := s.owner.load().progressAt, s.owner.load().progressWhat; at.IsZero() || what != "screen" {
		t.Fatalf("the stall's progress is not in the snapshot: %v %q", at, what)
	}
}

var errNoWake = errorString("the desk's wait was not woken by the publication: only its recheck would have seen it")

type errorString string

func (e errorString) Error() string { return string(e) }

// TestUnitAnswerAckScreen: a dialog the screen showed, answered by sup,
// then a screen verdict without it: the verdict and the close are one
// update (one version), the answer's ack says ("screen", the activity that
// followed) from that version on, and a reader polling the ack meanwhile
// never sees ("activity", "needs_confirmation").
func TestUnitAnswerAckScreen(t *testing.T) {
	s := newUnitSession(t)
	p := deskPort{s}
	s.owner.change(func() { s.owner.run.child, s.owner.run.lifecycle = &proc.Child{}, LifecycleRunning })
	t0 := time.Now()
	s.noteVerdict(screenVerdict{Rule: "approval", Activity: activity.NeedsConfirmation, At: t0})
	s.observe(activity.Signal{Source: activity.SourceScreen, Rule: "screen:approval", Activity: activity.NeedsConfirmation,
		Reason: "permission", Stuck: true, At: t0})
	n := s.owner.load()
	id := n.open.id
	if id == "" || n.st.Activity != activity.NeedsConfirmation {
		t.Fatalf("the dialog on screen: activity %s, prompt id %q; want needs_confirmation with an id", n.st.Activity, id)
	}

	written := t0.Add(time.Millisecond)
	s.display.noteAnswer(written)
	if by, act := p.AnswerAck(id, written); by != "" {
		t.Fatalf("right after the answer: acked by %q (%s), want not yet", by, act)
	}

	var (
		wg   sync.WaitGroup
		stop = make(chan struct{})
		bad  []string
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !closed(stop) {
			if by, act := p.AnswerAck(id, written); by == "activity" && act == string(activity.NeedsConfirmation) {
				bad = append(bad, by+"/"+act)
			}
		}
	}()
	before := s.owner.load().version
	s.noteVerdict(screenVerdict{Rule: "idle", Activity: activity.Ready, At: written.Add(time.Millisecond)})
	after := s.owner.load()
	close(stop)
	wg.Wait()

	if after.version != before+1 {
		t.Errorf("the verdict and the close published %d versions, want one", after.version-before)
	}
	if len(bad) > 0 {
		t.Errorf("the ack read %d times %s: a verdict without its close", len(bad), bad[0])
	}
	by, act := p.AnswerAck(id, written)
	if by != "screen" || act != string(activity.Ready) {
		t.Fatalf("after the screen closed the dialog: acked by %q (%s), want screen (ready)", by, act)
	}
	if after.st.Reason != "answered" || after.open.id != "" || after.gone.id != id {
		t.Fatalf("the closing snapshot: reason %q, open id %q, gone %q; want answered, none, %s", after.st.Reason, after.open.id, after.gone.id, id)
	}
	// An answer written after the screen closed the dialog is not the
	// one it closed.
	if by, _ := p.AnswerAck(id, after.gone.at.Add(time.Millisecond)); by == "screen" {
		t.Fatal("a later answer acknowledged by the screen's earlier close")
	}
}
