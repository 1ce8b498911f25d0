package desk

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// fakePort is a session for the desk's tests: facts set by the test (or
// by the agent's scripted reactions to what is written), a fake child,
// and a record of every write and event. Under testing/synctest its
// sleeps and the desk's timers take no time.
type fakePort struct {
	in sync.Mutex // the input lock: one write (paste, delay, Enter) at a time

	mu        sync.Mutex
	facts     Facts
	screen    string
	prompt    Prompt
	child     *fakeChild
	delay     time.Duration // the profile's submit delay
	writeErr  error         // the next write fails with it (once)
	writes    []string      // every payload and every "\r", in order
	events    []fakeEvent
	released  []time.Time
	bringBack func(f *fakePort) (Child, string, ipc.Code, error)
	allow     func(c ipc.Caller, act caller.Action, what string) error
	// The agent's reactions: after a payload was written (paste), during
	// the submit delay (delay), after the "\r" (enter); each runs without
	// f.mu held and may change the facts (set).
	paste, during, enter func(f *fakePort)
	// atCheck changes the facts right before a write's check (under f.mu):
	// what happened between the desk's look and the write.
	atCheck func(f *fakePort)
	// gone answers AnswerAck: nil is "still open".
	gone    func(f *fakePort, id string, written time.Time) (by, activity string)
	quit    chan struct{} // closed when the test ends: scripted changes still waiting stop
	changed chan struct{} // closed on the next set (Changed)
	// reads and acks count Facts and AnswerAck calls: a wait that polls
	// reads on every tick, one that watches Changed once per change.
	reads, acks int
}

type fakeEvent struct {
	name string
	data any
}

type fakeChild struct{ done chan struct{} }

func (c *fakeChild) Done() <-chan struct{} { return c.done }

// newFake is an idle agent, ready, with a running child.
func newFake() *fakePort {
	return &fakePort{child: &fakeChild{done: make(chan struct{})}, delay: 200 * time.Millisecond, quit: make(chan struct{}),
		facts: Facts{Progress: "p0", Envelope: true}}
}

// set changes the session's facts, and says so (Changed).
func (f *fakePort) set(change func(f *fakePort)) {
	f.mu.Lock()
	change(f)
	if f.changed != nil {
		close(f.changed)
		f.changed = nil
	}
	f.mu.Unlock()
}

func (f *fakePort) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.changed == nil {
		f.changed = make(chan struct{})
	}
	return f.changed
}

// busy is the agent taking a turn now (an ack by activity).
func busy(f *fakePort) { f.set(turnBusy) }

// turn is the agent taking a turn of a second: busy, then ready.
func turn(f *fakePort) {
	busy(f)
	go func() {
		select {
		case <-time.After(time.Second):
			f.set(func(f *fakePort) { f.facts.Gates.AgentBusy, f.facts.Ack.Busy = false, false })
		case <-f.quit:
		}
	}()
}

// turnBusy is busy as a change of the facts (under f.mu).
func turnBusy(f *fakePort) {
	f.facts.Gates.AgentBusy, f.facts.Gates.AgentWhy = true, "the agent is busy (mid-turn)"
	f.facts.Ack.Busy, f.facts.Ack.Since = true, time.Now()
}

// exit ends the running child.
func (f *fakePort) exit() {
	var c *fakeChild
	f.set(func(f *fakePort) { c, f.child = f.child, nil })
	close(c.done)
}

func (f *fakePort) gates() Gates {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.facts.Gates
}

func (f *fakePort) Child() Child {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.child == nil {
		return nil
	}
	return f.child
}

func (f *fakePort) BringBack() (Child, string, ipc.Code, error) {
	if f.bringBack == nil {
		return nil, "fresh", ipc.CodeSpawnFailed, errors.New("no bring-back in this test")
	}
	return f.bringBack(f)
}

func (f *fakePort) Write(c Child, check func(Gates) ([]byte, bool, error), confirm func(Gates) error) (time.Time, error) {
	f.in.Lock()
	defer f.in.Unlock()
	f.mu.Lock()
	if f.atCheck != nil {
		f.atCheck(f)
	}
	running, werr := f.child != nil && Child(f.child) == c, f.writeErr
	f.writeErr = nil
	f.mu.Unlock()
	if !running {
		return time.Time{}, ErrChildGone
	}
	payload, submit, err := check(f.gates())
	if err != nil {
		return time.Time{}, err
	}
	if werr != nil {
		return time.Time{}, werr
	}
	f.record(string(payload))
	f.react(f.paste)
	if !submit {
		return time.Now(), nil
	}
	time.Sleep(f.delay)
	f.react(f.during)
	if confirm != nil {
		if err := confirm(f.gates()); err != nil {
			return time.Time{}, err
		}
	}
	at := time.Now()
	f.record("\r")
	f.react(f.enter)
	return at, nil
}

func (f *fakePort) record(w string) {
	f.mu.Lock()
	f.writes = append(f.writes, w)
	f.mu.Unlock()
}

func (f *fakePort) react(r func(f *fakePort)) {
	if r != nil {
		r(f)
	}
}

func (f *fakePort) Released(at time.Time) {
	f.mu.Lock()
	f.released = append(f.released, at)
	f.mu.Unlock()
}

func (f *fakePort) Allow(c ipc.Caller, act caller.Action, what string) error {
	if f.allow == nil {
		return nil
	}
	return f.allow(c, act, what)
}

func (f *fakePort) Publish(event string, data any) {
	f.mu.Lock()
	f.events = append(f.events, fakeEvent{event, data})
	f.mu.Unlock()
}

func (f *fakePort) Facts(time.Time) Facts {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return f.facts
}

// count reads one of f's counters.
func (f *fakePort) count(n *int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *n
}

func (f *fakePort) Prompt(time.Time) Prompt {
	f.mu.Lock()
	defer f.mu.Unlock()
	pr := f.prompt
	pr.Gates, pr.BracketedPaste = f.facts.Gates, f.facts.BracketedPaste
	return pr
}

func (f *fakePort) AnswerAck(id string, written time.Time) (string, string) {
	f.mu.Lock()
	f.acks++
	f.mu.Unlock()
	if f.gone == nil {
		return "", "needs_confirmation"
	}
	return f.gone(f, id, written)
}

func (f *fakePort) ScreenText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.screen
}

func (f *fakePort) Identity() (string, string) { return "sess-1", "/doc.md" }

// written is every write so far, joined: "[payload]" per write, "\r" as is.
func (f *fakePort) written() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for _, w := range f.writes {
		if w == "\r" {
			b.WriteString(`\r`)
		} else {
			b.WriteString("[" + w + "]")
		}
	}
	return b.String()
}

// progress is the trigger_progress events' states and codes.
func (f *fakePort) progress() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.events {
		if e.name == EventProgress {
			p := e.data.(ipc.TriggerProgress)
			s := p.State
			if p.ErrorCode != "" {
				s += ":" + string(p.ErrorCode)
			}
			out = append(out, s)
		}
	}
	return out
}

// rig is a desk over a fake port, its delivery goroutine running, inside
// a synctest bubble: time moves only when every goroutine waits.
type rig struct {
	t     *testing.T
	d     *Desk
	f     *fakePort
	dir   string
	start time.Time
}

// withDesk runs body in a bubble with a desk under cfg over a fake
// session that setup (when not nil) prepared, and stops the desk's
// goroutine and the fake's scripted changes after it.
func withDesk(t *testing.T, cfg trigger.Config, setup func(f *fakePort), body func(r *rig)) {
	t.Helper()
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		if setup != nil {
			setup(f)
		}
		d := New(cfg, store.NewAudit(dir, store.AuditConfig{}), f, slog.New(slog.DiscardHandler))
		done, ran := make(chan struct{}), make(chan struct{})
		go func() { d.Run(done); close(ran) }()
		defer func() { // also after a Fatal: a bubble ends with no goroutine left
			close(done)
			<-ran
			close(f.quit)
		}()
		body(&rig{t: t, d: d, f: f, dir: dir, start: time.Now()})
	})
}

// trigger sends a waiting trigger and returns its outcome.
func (r *rig) trigger(p ipc.TriggerParams) ipc.TriggerResult {
	r.t.Helper()
	p.Wait = true
	res, err := r.d.Trigger(context.Background(), p)
	if err != nil {
		r.t.Fatalf("trigger %+v: %v", p, err)
	}
	return res
}

// audit is every line of the audit trail.
func (r *rig) audit() []map[string]any {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "audit.jsonl"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		r.t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			r.t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// since is how long the bubble's clock moved since the rig started.
func (r *rig) since() time.Duration { return time.Since(r.start) }
