//go:build linux

package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// State is how far sup's hooks are installed in one file.
type State string

// The states of a file.
const (
	Installed    State = "installed"     // every event has sup's entry (Codex: notify runs sup)
	Partial      State = "partial"       // some events lack sup's entry (FileStatus.Missing)
	NotInstalled State = "not_installed" // no sup entry, or no file
	Malformed    State = "malformed"     // the file cannot be read or parsed (FileStatus.Problem)
	Conflict     State = "conflict"      // Codex's notify runs another program
)

// FileStatus is one settings file's state.
type FileStatus struct {
	Agent    Agent    `json:"agent"`
	Scope    Scope    `json:"scope"`
	Kind     string   `json:"kind"` // KindHooks or KindNotify
	Path     string   `json:"path"`
	Exists   bool     `json:"exists"`
	State    State    `json:"state"`
	Missing  []string `json:"missing,omitempty"`  // events without sup's entry
	Commands []string `json:"commands,omitempty"` // sup's commands found (notify: its argv, joined)
	Problem  string   `json:"problem,omitempty"`  // why malformed or conflict; a sup program that is gone
}

// Status reports every agent's user settings and, when projectDir is not
// empty, its settings in projectDir (a project file that is also the user
// file, as in a project at $HOME, is reported once).
func Status(env Env, projectDir string) []FileStatus {
	var out []FileStatus
	seen := map[string]bool{}
	for _, a := range Agents {
		targets := []Target{{Agent: a, Scope: User}}
		if projectDir != "" {
			targets = append(targets, Target{Agent: a, Scope: Project, Dir: projectDir})
		}
		for _, t := range targets {
			files, err := env.files(t)
			if err != nil {
				continue
			}
			for _, f := range files {
				if seen[f.path] {
					continue
				}
				seen[f.path] = true
				s := fileStatus(t, f)
				if t.Agent == Codex && f.kind == KindHooks {
					s.addProblem(codexHooksOff(env))
				}
				out = append(out, s)
			}
		}
	}
	return out
}

func fileStatus(t Target, f file) FileStatus {
	s := FileStatus{Agent: t.Agent, Scope: t.Scope, Kind: f.kind, Path: f.path}
	data, exists, err := readFile(f.path)
	s.Exists = exists
	if err != nil {
		s.State, s.Problem = Malformed, err.Error()
		return s
	}
	switch f.kind {
	case KindHooks:
		doc, err := parseJSON(f.path, data)
		var in inspection
		if err == nil {
			in, err = f.spec.inspect(f.path, doc)
		}
		if err != nil {
			s.State, s.Problem = Malformed, err.Error()
			return s
		}
		s.Commands = in.commands
		s.addProblem(hooksOff(t.Agent, doc))
		switch {
		case len(in.missing) == 0:
			s.State = Installed
		case len(in.present) == 0:
			s.State = NotInstalled
		default:
			s.State, s.Missing = Partial, in.missing
		}
		for _, c := range in.commands {
			s.checkProgram(shellWords(c))
		}
	case KindNotify:
		st, err := readNotify(f.path, data)
		switch {
		case err != nil:
			s.State, s.Problem = Malformed, err.Error()
		case !st.present:
			s.State = NotInstalled
		case !st.ours():
			s.State, s.Problem = Conflict, "notify = "+st.text+" runs another program"
		default:
			s.State = Installed
			s.Commands = []string{st.text}
			s.checkProgram(st.argv)
		}
	}
	return s
}

// checkProgram notes a sup entry whose program is an absolute path that
// is gone (sup moved or was uninstalled): the agent's hook fails there.
func (s *FileStatus) checkProgram(argv []string) {
	if len(argv) == 0 || !filepath.IsAbs(argv[0]) {
		return
	}
	if _, err := os.Stat(argv[0]); err != nil {
		s.addProblem(argv[0] + " does not exist (run sup hooks install again)")
	}
}

func (s *FileStatus) addProblem(p string) {
	if p == "" || strings.Contains(s.Problem, p) {
		return
	}
	if s.Problem != "" {
		s.Problem += "; "
	}
	s.Problem += p
}

// hooksOff names a setting in an agent's settings file that turns all
// its hooks off, "" when there is none.
func hooksOff(a Agent, doc *jnode) string {
	isFalse := func(n *jnode) bool { return n != nil && n.kind == 0 && string(n.text) == "false" }
	switch a {
	case Claude:
		if n := doc.get("disableAllHooks"); n != nil && string(n.text) == "true" {
			return "disableAllHooks is true: Claude Code runs no hooks"
		}
	case Gemini:
		if isFalse(doc.get("hooksConfig").get("enabled")) {
			return "hooksConfig.enabled is false: Gemini CLI runs no hooks"
		}
		if isFalse(doc.get("tools").get("enableHooks")) {
			return "tools.enableHooks is false: Gemini CLI runs no hooks"
		}
	}
	return ""
}

// codexHooksOff reads the user's config.toml for [features] hooks = false
// (or its older name codex_hooks), which turns Codex's hooks off.
func codexHooksOff(env Env) string {
	data, _, err := readFile(filepath.Join(env.CodexHome, "config.toml"))
	if err != nil {
		return ""
	}
	var cfg struct {
		Features map[string]any `toml:"features"`
	}
	if toml.Unmarshal(data, &cfg) != nil {
		return ""
	}
	for _, k := range []string{"hooks", "codex_hooks"} {
		if v, ok := cfg.Features[k].(bool); ok && !v {
			return "[features] " + k + " = false in config.toml: Codex runs no hooks"
		}
	}
	return ""
}
