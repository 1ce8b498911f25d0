package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/sup-tmux/sup/internal/atomicfile"
	"github.com/sup-tmux/sup/internal/paths"
	"golang.org/x/sys/unix"
)

// RegistryFile is the name, in the state dir, of the record of sessions
// that supervisors keep for the broker's routing fallback: what ran for
// which workspace and role, and the agent conversation to resume.
const RegistryFile = paths.RegistryFile

// Registry is sessions.json.
type Registry struct {
	Version  int                      `json:"version"`  // 1
	Sessions map[string]RegistryEntry `json:"sessions"` // by absolute document path: one document, one session
}

// RegistryEntry is what the broker needs to bring a session back.
type RegistryEntry struct {
	Workspace      string `json:"workspace"`
	Role           string `json:"role"`
	Name           string `json:"name"`
	Document       string `json:"document"`
	Profile        string `json:"profile"`
	AgentSessionID string `json:"agent_session_id"` // the last conversation known; kept when a new run has none yet
	CWD            string `json:"cwd"`
	// What `sup start` was given beyond the document, so that whatever
	// brings the session back (sup route) starts the same thing: the
	// command after --, --profile, --cwd (absolute) as given (empty: not
	// given; the document's frontmatter and config decide again).
	Command     []string `json:"command,omitempty"`
	ProfileFlag string   `json:"profile_flag,omitempty"`
	CWDFlag     string   `json:"cwd_flag,omitempty"`
	// TmuxSocket is the tmux server the session ran in ("": not in
	// tmux): a route from outside tmux brings it back there.
	TmuxSocket string `json:"tmux_socket,omitempty"`
	// EnvNames are the variables the session's agent got from the shell
	// that started it and cannot do without (plan.RequiredNames: the
	// env_passthrough ones and the agents' credentials): a route from a
	// shell lacking one refuses (specs/broker.md). Names, never values.
	EnvNames  []string `json:"env_names,omitempty"`
	UpdatedAt int64    `json:"updated_at"` // unix ms
}

// ReadRegistry reads stateDir/sessions.json; a missing file is empty.
func ReadRegistry(stateDir string) (Registry, error) {
	reg := Registry{Version: 1, Sessions: map[string]RegistryEntry{}}
	data, err := os.ReadFile(paths.Registry(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return reg, nil
	}
	if err != nil {
		return reg, fmt.Errorf("read session registry: %w", err)
	}
	if err := json.Unmarshal(data, &reg); err != nil {
		return reg, fmt.Errorf("session registry %s: %w", paths.Registry(stateDir), err)
	}
	if reg.Sessions == nil {
		reg.Sessions = map[string]RegistryEntry{}
	}
	return reg, nil
}

// RecordSession writes e into stateDir/sessions.json. Many supervisors
// share the file: an flock on sessions.json.lock serialises the
// read-modify-write, and the new content goes to a temporary file renamed
// over the old one, so a reader never sees half a file.
func RecordSession(stateDir string, e RegistryEntry) error {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return fmt.Errorf("session registry: %w", err)
	}
	path := paths.Registry(stateDir)
	lock, err := os.OpenFile(paths.RegistryLock(stateDir), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("session registry lock: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("session registry lock: %w", err)
	}
	reg, err := ReadRegistry(stateDir)
	if err != nil {
		// A corrupt file is replaced rather than blocking every
		// supervisor forever; it only ever held hints.
		reg = Registry{Sessions: map[string]RegistryEntry{}}
	}
	reg.Version = 1
	if old, ok := reg.Sessions[e.Document]; ok && e.AgentSessionID == "" && old.Profile == e.Profile {
		e.AgentSessionID = old.AgentSessionID
	}
	e.UpdatedAt = time.Now().UnixMilli()
	reg.Sessions[e.Document] = e
	data, err := json.MarshalIndent(reg, "", "  ")
	if err != nil {
		return fmt.Errorf("session registry: %w", err)
	}
	if err := atomicfile.Write(path, append(data, '\n'), atomicfile.Options{Durable: true}); err != nil {
		return fmt.Errorf("session registry: %w", err)
	}
	return nil
}
