//go:build linux

package testutil

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
)

// Rig is the world of an end-to-end test, shared by the supervisor's and
// the broker's: the sup and fakeagent binaries, a private tmux server, a
// scratch dir, and the environment (SupEnv) that keeps every supervisor
// and broker the test runs private to it. End-to-end rigs are slow: with
// -short the test is skipped.
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
	r := &Rig{T: t, Tmux: NewTmux(t), Bins: bins, Dir: dir, Env: SupEnv(t, bins, dir)}
	if configYAML != "" {
		r.Write("config/sup/config.yaml", configYAML)
	}
	return r
}

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

// Start runs `sup start DOC -- fakeagent ARGS...` in a new window and
// waits for the agent to be ready; it returns the window's pane.
func (r *Rig) Start(doc string, fakeArgs ...string) string {
	r.T.Helper()
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
	cmd := exec.CommandContext(ctx, r.Bins.Sup, args...)
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

// Sockets lists the control sockets in the rig's runtime dir.
func (r *Rig) Sockets() []string {
	m, _ := filepath.Glob(filepath.Join(r.Env["SUP_RUNTIME_DIR"], "*.sock"))
	return m
}
