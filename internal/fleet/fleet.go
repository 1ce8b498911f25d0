//go:build linux

// Package fleet runs supervised fake agents in a private tmux server for
// end-to-end tests of the broker's verbs (dash, metrics, completion): real
// `sup start` processes, real sockets, a real attached tmux client.
package fleet

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// Fleet is a private tmux server and the supervisors in its windows, all
// sharing one private runtime, config and state dir.
type Fleet struct {
	T    testing.TB
	Tmux *testutil.Tmux
	Bins testutil.Bins
	Dir  string            // documents, config and state live here
	Env  map[string]string // the supervisors' and brokers' environment
}

// New builds sup and fakeagent and starts an empty fleet; everything it
// starts is cleaned up with the test.
func New(t testing.TB) *Fleet {
	t.Helper()
	bins := testutil.Build(t)
	dir := t.TempDir()
	return &Fleet{T: t, Tmux: testutil.NewTmux(t), Bins: bins, Dir: dir, Env: testutil.SupEnv(t, bins, dir)}
}

// RuntimeDir is where the fleet's sockets are.
func (f *Fleet) RuntimeDir() string { return f.Env["SUP_RUNTIME_DIR"] }

// Start supervises a fake agent for document NAME.md in a new window and
// returns its pane once the agent is up.
func (f *Fleet) Start(name string) string {
	f.T.Helper()
	doc := filepath.Join(f.Dir, name+".md")
	if err := os.WriteFile(doc, []byte("# "+name+"\n"), 0o644); err != nil {
		f.T.Fatal(err)
	}
	pane := f.Tmux.NewWindowDir(f.Dir, f.Env, f.Bins.Sup, "start", doc, "--", "fakeagent", "-echo")
	f.Tmux.WaitFor(f.T, pane, "fakeagent ready", 10*time.Second)
	return pane
}

// Session is the live session called name.
func (f *Fleet) Session(name string) broker.Session {
	f.T.Helper()
	res, err := broker.Discover(context.Background(), f.RuntimeDir(), 5*time.Second)
	if err != nil {
		f.T.Fatal(err)
	}
	for _, s := range res.Sessions {
		if s.State.Name == name {
			return s
		}
	}
	f.T.Fatalf("no session %s", name)
	return broker.Session{}
}

// Stuck makes name wait on the human, as Claude Code's Stop hook does.
func (f *Fleet) Stuck(name string) {
	f.T.Helper()
	c, err := ipc.Dial(f.Session(name).Socket, 5*time.Second)
	if err != nil {
		f.T.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p := ipc.HookParams{Agent: "claude", Event: "Stop", SessionID: "conv-" + name, Message: name + " is done"}
	if err := c.Call(ctx, ipc.MethodHook, p, nil); err != nil {
		f.T.Fatal(err)
	}
}

// Environ is the process environment plus the fleet's.
func (f *Fleet) Environ() []string {
	env := os.Environ()
	for k, v := range f.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// Sup runs a broker verb against the fleet and returns its stdout.
func (f *Fleet) Sup(args ...string) (string, error) {
	f.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.Bins.Sup, args...)
	cmd.Env, cmd.Dir = f.Environ(), f.Dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("sup %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}
