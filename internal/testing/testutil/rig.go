//go:build linux

package testutil

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
)

// Rig is the world of every end-to-end test that runs real `sup start`
// (the supervisor's, the broker's, cmd/sup's dash, metrics and completion,
// the Neovim plugin's, the conformance suite's): the sup and fakeagent
// binaries, a private tmux server, a scratch dir, and the environment
// (SupEnv) that keeps every supervisor and broker the test runs private to
// it. End-to-end rigs are slow: with -short the test is skipped.
type Rig struct {
	T    testing.TB
	Tmux *Tmux
	Bins Bins
	Dir  string            // the test's scratch dir: documents, config, state
	Env  map[string]string // SupEnv: runtime, config and state dirs, PATH
}

// NewRig builds the binaries, starts the tmux server and, when configYAML
// is not empty, writes it as the rig's config.yaml.
func NewRig(t testing.TB, configYAML string) *Rig {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: skipped with -short")
	}
	bins := Build(t)
	dir := t.TempDir()
	// SupEnv before NewTmux: cleanups run last first, so the runtime dir
	// goes after the tmux cleanup has ended the supervisors. The other
	// way round a supervisor still running wrote its queue facts into a
	// new runtime dir after the removal, and each run left ~400 of them
	// in /tmp.
	env := SupEnv(t, bins, dir)
	r := &Rig{T: t, Tmux: NewTmux(t), Bins: bins, Dir: dir, Env: env}
	// The fakeagent runs under the claude profile, whose pack reads none of
	// its screen: without this, the fallback would make every fake agent a
	// question 3 s after it starts (specs/detection.md, "Fallback"). A test
	// of the fallback writes its own overlay; a test that triggers starts
	// the fakeagent with -ready, since sup types into no unknown screen.
	r.Write("config/sup/profiles/claude.yaml", FakeAgentProfile)
	if configYAML != "" {
		r.Write("config/sup/config.yaml", configYAML)
	}
	return r
}

// FakeAgentProfile is the claude profile overlay under which a rig's fake
// agents run (NewRig writes it; a rig of its own, such as one for another
// user, writes it too): their screen stays unknown for the test's life,
// and `sup start DOC -- fakeagent` picks it by the program's name.
const FakeAgentProfile = "unknown_after: 1m\ncommands: [claude, fakeagent]\n"

// Write writes content to rel, a path under the rig's dir, and returns the
// full path.
func (r *Rig) Write(rel, content string) string {
	r.T.Helper()
	p := filepath.Join(r.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
	return p
}

// Environ is the test's environment plus the rig's.
func (r *Rig) Environ() []string {
	env := os.Environ()
	for k, v := range r.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// Start supervises `fakeagent fakeArgs...` for the document NAME.md in the
// rig's dir (so the session is called NAME; "# NAME" is written there
// unless the test wrote the document first) in a new window, waits for the
// agent's ready line and returns the window's pane.
func (r *Rig) Start(name string, fakeArgs ...string) string {
	r.T.Helper()
	doc := filepath.Join(r.Dir, name+".md")
	if _, err := os.Stat(doc); err != nil {
		r.Write(name+".md", "# "+name+"\n")
	}
	argv := append([]string{r.Bins.Sup, "start", doc, "--", "fakeagent"}, fakeArgs...)
	pane := r.Tmux.NewWindowDir(r.Dir, r.Env, argv...)
	r.Tmux.WaitFor(r.T, pane, "fakeagent ready", 10*time.Second)
	return pane
}

// Sup runs a sup client verb in the rig's dir with env (nil: Environ()),
// within 20 s. The error carries sup's stderr.
func (r *Rig) Sup(env []string, args ...string) (string, error) {
	r.T.Helper()
	if env == nil {
		env = r.Environ()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Bins.SupCLI, args...)
	cmd.Env, cmd.Dir = env, r.Dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), &SupError{Args: args, Err: err, Stderr: errb.String()}
	}
	return out.String(), nil
}

// SupError is a sup verb that failed: its arguments, exit and stderr.
type SupError struct {
	Args   []string
	Err    error
	Stderr string
}

func (e *SupError) Error() string {
	return fmt.Sprintf("sup %s: %v: %s", strings.Join(e.Args, " "), e.Err, e.Stderr)
}

// Unwrap gives the exit error.
func (e *SupError) Unwrap() error { return e.Err }

// RuntimeDir is where the supervisors' sockets and queue files are.
func (r *Rig) RuntimeDir() string { return r.Env["SUP_RUNTIME_DIR"] }

// Sockets lists the control sockets in the rig's runtime dir.
func (r *Rig) Sockets() []string {
	m, _ := filepath.Glob(filepath.Join(r.RuntimeDir(), "*.sock"))
	return m
}

// Socket waits (10 s) until the session called name has published its
// queue facts (specs/ipc.md) and has its socket, and returns the socket's
// path. It waits, not looks once: a supervisor publishes both a moment
// after its agent is ready, and again after its runtime dir was deleted.
// The facts are read as JSON, not asked over the socket: testutil stays
// below ipc (whose own tests use it); ipctest has the calls.
func (r *Rig) Socket(name string) string {
	r.T.Helper()
	var sock string
	WaitUntil(r.T, 10*time.Second, "the socket of session "+name, func() bool {
		var ok bool
		sock, ok = r.LookupSocket(name)
		return ok
	})
	return sock
}

// LookupSocket is Socket's one look: the socket of the session called
// name, if it has published its queue facts and the socket is there.
func (r *Rig) LookupSocket(name string) (string, bool) {
	r.T.Helper()
	files, _ := filepath.Glob(filepath.Join(paths.QueueDir(r.RuntimeDir()), "*.json"))
	for _, f := range files {
		var facts struct {
			SessionID string `json:"session_id"`
			Name      string `json:"name"`
		}
		data, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(data, &facts) != nil || facts.Name != name {
			continue // Best effort: being replaced, or another session.
		}
		sock, err := paths.Socket(r.RuntimeDir(), facts.SessionID)
		if err != nil {
			r.T.Fatalf("session %s: %v", name, err)
		}
		if _, err := os.Stat(sock); err == nil {
			return sock, true
		}
		// A file left by a supervisor that was killed: another may be live.
	}
	return "", false
}
