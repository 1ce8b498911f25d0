//go:build linux

package testutil

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Supervisors runs `sup start` sessions of fakeagent, each in a window of
// one private tmux server, sharing one private environment (runtime dir,
// config, state): the live supervisors that clients of the socket are
// tested against.
type Supervisors struct {
	t    testing.TB
	Tmux *Tmux
	Bins Bins
	Dir  string            // documents, config and state live here
	Env  map[string]string // see SupEnv
}

// NewSupervisors builds sup and fakeagent and prepares the environment;
// configYAML, when not empty, becomes sup's config.yaml.
func NewSupervisors(t testing.TB, configYAML string) *Supervisors {
	t.Helper()
	bins := Build(t)
	dir := t.TempDir()
	s := &Supervisors{t: t, Tmux: NewTmux(t), Bins: bins, Dir: dir, Env: SupEnv(t, bins, dir)}
	if configYAML != "" {
		s.write(filepath.Join("config", "sup", "config.yaml"), configYAML)
	}
	return s
}

func (s *Supervisors) write(rel, content string) string {
	s.t.Helper()
	p := filepath.Join(s.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// Start supervises `fakeagent fakeArgs...` for the document NAME.md (so
// the session is called NAME) in a new window, waits for the agent's ready
// line and returns the pane.
func (s *Supervisors) Start(name string, fakeArgs ...string) string {
	s.t.Helper()
	doc := s.write(name+".md", "# "+name+"\n")
	argv := append([]string{s.Bins.Sup, "start", doc, "--", "fakeagent"}, fakeArgs...)
	pane := s.Tmux.NewWindowDir(s.Dir, s.Env, argv...)
	s.Tmux.WaitFor(s.t, pane, "fakeagent ready", 10*time.Second)
	return pane
}

// RuntimeDir is where the sessions' sockets are.
func (s *Supervisors) RuntimeDir() string { return s.Env["SUP_RUNTIME_DIR"] }

// Socket waits for the session called name to publish its queue facts
// (specs/ipc.md) and returns its socket's path.
func (s *Supervisors) Socket(name string) string {
	s.t.Helper()
	var sock string
	WaitUntil(s.t, 10*time.Second, "the socket of session "+name, func() bool {
		files, _ := filepath.Glob(filepath.Join(s.RuntimeDir(), "queue", "*.json"))
		for _, f := range files {
			var facts struct {
				SessionID string `json:"session_id"`
				Name      string `json:"name"`
			}
			data, err := os.ReadFile(f)
			if err != nil || json.Unmarshal(data, &facts) != nil || facts.Name != name {
				continue // Best effort: being replaced, or another session.
			}
			sock = filepath.Join(s.RuntimeDir(), facts.SessionID+".sock")
			_, err = os.Stat(sock)
			return err == nil
		}
		return false
	})
	return sock
}

// EnvList is os.Environ with Env added: for commands run as the sessions'
// user would run them.
func (s *Supervisors) EnvList() []string {
	env := os.Environ()
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	return env
}
