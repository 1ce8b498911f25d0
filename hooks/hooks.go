//go:build linux

// Package hooks is both ends of the agents' hooks: Parse reads the payload
// an agent hands `sup hook` (which forwards it to the supervisor at
// $SUP_SOCKET), and Prepare/Apply install sup's hook entries into the
// settings files of the agents sup supervises (Claude Code, Codex, Gemini
// CLI), Status reporting whether they are there.
//
// The package edits files it does not own, so it is careful: it recognises
// its own entries by their command, never touches anything else, keeps the
// order and values of every other key, writes atomically with a backup,
// and refuses malformed files. specs/hooks.md has the formats and the
// decisions.
package hooks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/ipc"
)

// Agent names an agent whose hooks sup can install.
type Agent string

// The agents sup installs hooks for: ipc.Agents, named.
const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
	Gemini Agent = "gemini"
)

// Agents lists every agent (ipc.Agents), in the order status reports them.
var Agents = func() []Agent {
	as := make([]Agent, len(ipc.Agents))
	for i, a := range ipc.Agents {
		as[i] = Agent(a)
	}
	return as
}()

// ParseAgent checks an agent name.
func ParseAgent(s string) (Agent, error) {
	for _, a := range Agents {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown agent %q (want %s)", s, ipc.AgentChoices())
}

// Scope says whose settings a file holds.
type Scope string

// The scopes: the user's own settings, or one project's.
const (
	User    Scope = "user"
	Project Scope = "project"
)

// Env is where the agents keep their user settings. EnvFrom fills it from
// the environment the way the agents themselves do.
type Env struct {
	Home            string // $HOME
	ClaudeConfigDir string // $CLAUDE_CONFIG_DIR, else Home/.claude
	CodexHome       string // $CODEX_HOME, else Home/.codex
	GeminiDir       string // $GEMINI_CLI_HOME/.gemini, else Home/.gemini
}

// EnvFrom resolves Env with getenv (os.Getenv in the CLI).
func EnvFrom(getenv func(string) string) (Env, error) {
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return Env{}, fmt.Errorf("no home directory: %w", err)
		}
		home = h
	}
	e := Env{
		Home:            home,
		ClaudeConfigDir: filepath.Join(home, ".claude"),
		CodexHome:       filepath.Join(home, ".codex"),
		GeminiDir:       filepath.Join(home, ".gemini"),
	}
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		e.ClaudeConfigDir = d
	}
	if d := getenv("CODEX_HOME"); d != "" {
		e.CodexHome = d
	}
	if d := getenv("GEMINI_CLI_HOME"); d != "" {
		e.GeminiDir = filepath.Join(d, ".gemini")
	}
	return e, nil
}

// Target is one place to install into: an agent's user settings, or its
// settings in the project directory Dir.
type Target struct {
	Agent Agent
	Scope Scope
	Dir   string // the project directory (Scope Project)
}

func (t Target) String() string {
	if t.Scope == Project {
		return fmt.Sprintf("%s (project %s)", t.Agent, t.Dir)
	}
	return fmt.Sprintf("%s (user)", t.Agent)
}

// File kinds: a Claude-style JSON settings file with a "hooks" object, or
// Codex's config.toml (its root notify key).
const (
	KindHooks  = "hooks"
	KindNotify = "notify"
)

// file is one settings file of a target.
type file struct {
	path string
	kind string // KindHooks or KindNotify
	spec *jsonSpec
}

// files lists the settings files a target consists of.
func (e Env) files(t Target) ([]file, error) {
	if t.Scope == Project && t.Dir == "" {
		return nil, fmt.Errorf("%s: no project directory", t.Agent)
	}
	switch t.Agent {
	case Claude:
		dir := e.ClaudeConfigDir
		if t.Scope == Project {
			dir = filepath.Join(t.Dir, ".claude")
		}
		return []file{{path: filepath.Join(dir, "settings.json"), kind: KindHooks, spec: &claudeSpec}}, nil
	case Codex:
		if t.Scope == Project {
			// Codex ignores notify in a project's config.toml (it says
			// "Ignored unsupported project-local config keys"), so a
			// project gets hooks.json alone.
			return []file{{path: filepath.Join(t.Dir, ".codex", "hooks.json"), kind: KindHooks, spec: &codexSpec}}, nil
		}
		return []file{
			{path: filepath.Join(e.CodexHome, "config.toml"), kind: KindNotify},
			{path: filepath.Join(e.CodexHome, "hooks.json"), kind: KindHooks, spec: &codexSpec},
		}, nil
	case Gemini:
		dir := e.GeminiDir
		if t.Scope == Project {
			dir = filepath.Join(t.Dir, ".gemini")
		}
		return []file{{path: filepath.Join(dir, "settings.json"), kind: KindHooks, spec: &geminiSpec}}, nil
	}
	return nil, fmt.Errorf("unknown agent %q", t.Agent)
}

// Paths lists the files a target's install reads and writes.
func (e Env) Paths(t Target) ([]string, error) {
	fs, err := e.files(t)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.path)
	}
	return out, nil
}

// DefaultSup is the sup the installed hooks run: the absolute path of the
// running binary. When the sup found in PATH is this same binary, its PATH
// name is used instead (a package manager's stable symlink such as
// /usr/local/bin/sup rather than the versioned file it points to, which the
// next upgrade removes).
func DefaultSup() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the sup binary: %w", err)
	}
	if p, err := exec.LookPath("sup"); err == nil {
		if abs, err := filepath.Abs(p); err == nil && sameFile(abs, exe) {
			return abs, nil
		}
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		// `go run`: the binary is deleted when sup exits.
		return "", fmt.Errorf("this sup is a temporary build (%s), gone when it exits: install sup, or name the sup the hooks should run with --sup-path", exe)
	}
	return exe, nil
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

// Command is the shell command line a Claude-style hook runs: sup, quoted
// for the shell when it needs to be, then `hook --agent AGENT`.
func Command(sup string, a Agent) string {
	return shellquote.Quote(sup) + " hook --agent " + string(a)
}

// NotifyArgv is Codex's notify value: Codex runs it with the turn's JSON
// appended as the last argument.
func NotifyArgv(sup string) []string {
	return []string{sup, "hook", "--agent", string(Codex)}
}

// IsSupCommand reports whether a hook command line is sup's: its program's
// base name starts with "sup" and its first argument is "hook". This is the
// marker by which sup finds its own entries (whatever path or version of
// sup wrote them) and leaves every other hook alone.
func IsSupCommand(command string) bool {
	return isSupArgv(shellWords(command))
}

func isSupArgv(argv []string) bool {
	return len(argv) >= 2 && strings.HasPrefix(filepath.Base(argv[0]), "sup") && argv[1] == "hook"
}

// shellWords splits a command line into words the way a POSIX shell would
// for the simple commands hooks hold: blanks separate words; single
// quotes, double quotes and backslashes quote. Anything fancier (variables,
// operators) stays literal, which is enough to recognise sup's entries.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				break
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			inWord = true
			i++
			cur.WriteByte(s[i])
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
