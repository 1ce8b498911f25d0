package plan

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
)

// Env sources, as --print-env shows them.
const (
	EnvFromParent      = "parent"                  // the built-in allow-list
	EnvFromProfile     = "profile_passthrough"     // the profile's env_passthrough
	EnvFromDocument    = "frontmatter_passthrough" // the document's env_passthrough
	EnvFromFrontmatter = "frontmatter_env"         // the document's env overlay
	EnvFromSup         = "sup"                     // set by sup itself
)

// allowedNames and allowedPrefixes are the parent variables every child gets:
// what a terminal program needs to behave (locale, terminal, tmux) and what an
// agent needs to authenticate. Everything else must be asked for by name, so a
// secret exported in the user's shell does not leak into every agent.
var (
	allowedNames = []string{
		"HOME", "USER", "LOGNAME", "SHELL", "PATH", "TERM", "COLORTERM", "LANG", "TZ",
		"TMUX", "TMUX_PANE", "SSH_AUTH_SOCK", "SUP_RUNTIME_DIR",
		"http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
	}
	allowedPrefixes = []string{"LC_", "XDG_", "ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_"}
)

// EnvVar is one variable of the child's environment and where it came from.
type EnvVar struct {
	Name, Value, Source string
}

// EnvInput is what BuildEnv builds from.
type EnvInput struct {
	Parent             []string          // the supervisor's environment, as os.Environ
	ProfilePassthrough []string          // names or PREFIX_* patterns
	DocPassthrough     []string          // names or PREFIX_* patterns
	Overlay            map[string]string // frontmatter env; values expand $VAR against Parent
	OverlayOrder       []string          // Overlay's keys in document order; nil: sorted
	Sup                map[string]string // SUP_SESSION, SUP_DOCUMENT, SUP_NAME, SUP_SOCKET, PWD
}

// BuildEnv builds the child's environment: allow-listed parent variables, the
// passthrough names, the frontmatter overlay, then sup's own variables, each
// later layer overriding the earlier. The result is sorted by name.
func BuildEnv(in EnvInput) ([]EnvVar, error) {
	parent := map[string]string{}
	for _, kv := range in.Parent {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			parent[k] = v
		}
	}
	out := map[string]EnvVar{}
	take := func(source string, match func(string) bool) {
		for k, v := range parent {
			if match(k) {
				out[k] = EnvVar{k, v, source}
			}
		}
	}
	take(EnvFromParent, func(k string) bool { return matchAny(k, allowedNames, allowedPrefixes) })
	take(EnvFromProfile, patternMatcher(in.ProfilePassthrough))
	take(EnvFromDocument, patternMatcher(in.DocPassthrough))
	order := in.OverlayOrder
	if order == nil {
		order = slices.Sorted(maps.Keys(in.Overlay))
	}
	for _, k := range order {
		if _, reserved := in.Sup[k]; reserved || reservedEnvName(k) {
			return nil, fmt.Errorf("frontmatter sup.env.%s: set by sup itself and cannot be overridden", k)
		}
		v := os.Expand(in.Overlay[k], func(name string) string {
			if name == "$" {
				return "$" // $$ is a literal dollar sign
			}
			return parent[name]
		})
		out[k] = EnvVar{k, v, EnvFromFrontmatter}
	}
	for k, v := range in.Sup {
		out[k] = EnvVar{k, v, EnvFromSup}
	}
	vars := make([]EnvVar, 0, len(out))
	for _, v := range out {
		vars = append(vars, v)
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
	return vars, nil
}

// reservedEnvName reports the variables sup sets for every child (PWD and
// SUP_*), which a document may not override.
func reservedEnvName(k string) bool { return k == "PWD" || strings.HasPrefix(k, "SUP_") }

// Environ renders vars as NAME=VALUE strings for exec.Cmd.Env.
func Environ(vars []EnvVar) []string {
	env := make([]string, len(vars))
	for i, v := range vars {
		env[i] = v.Name + "=" + v.Value
	}
	return env
}

// EnvNames lists the names only: the session log records names, never values.
func EnvNames(vars []EnvVar) []string {
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.Name
	}
	return names
}

func patternMatcher(patterns []string) func(string) bool {
	var names, prefixes []string
	for _, p := range patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			prefixes = append(prefixes, prefix)
		} else {
			names = append(names, p)
		}
	}
	return func(k string) bool { return matchAny(k, names, prefixes) }
}

func matchAny(k string, names, prefixes []string) bool {
	for _, n := range names {
		if k == n {
			return true
		}
	}
	for _, p := range prefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// secretWords mark variable names whose values --print-env masks.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "AUTH", "COOKIE", "SESSION_ID"}

// MaskedValue returns v's value as --print-env may show it: secret-looking
// names and proxy URLs carrying a password are masked, keeping the length so
// the user can tell an empty value from a set one.
func MaskedValue(v EnvVar) string {
	upper := strings.ToUpper(v.Name)
	secret := upper != "SSH_AUTH_SOCK" && containsAny(upper, secretWords)
	if strings.HasSuffix(upper, "_PROXY") && strings.Contains(v.Value, "@") {
		secret = true
	}
	if !secret || v.Value == "" {
		return v.Value
	}
	return fmt.Sprintf("****(%d chars)", len(v.Value))
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// credentialPrefixes are the allow-list's prefixes an agent authenticates
// with: a session that had one of these must not come back without it.
var credentialPrefixes = []string{"ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_"}

// RequiredNames are the variables of vars that a session brought back
// from another shell (sup route) must find there (specs/broker.md,
// "Routing"): those the profile's or the document's env_passthrough asked
// for, and the agents' credential variables (ANTHROPIC_*, OPENAI_*, …).
// Names only: sessions.json records them, never a value. Sorted.
func RequiredNames(vars []EnvVar) []string {
	var names []string
	for _, v := range vars {
		switch {
		case v.Source == EnvFromProfile, v.Source == EnvFromDocument,
			v.Source == EnvFromParent && matchAny(v.Name, nil, credentialPrefixes):
			names = append(names, v.Name)
		}
	}
	return names
}

// CallerNames are the names of the caller's variables p was built from:
// every variable of its environment that the caller gave (not sup's own,
// not the frontmatter overlay's) and every variable an overlay value
// names. `sup route` passes exactly these, with the caller's values, to
// the `sup start` it runs in a new tmux window, which then resolves the
// environment `sup start` would in the caller's shell. Sorted.
func (p *Plan) CallerNames() []string {
	set := map[string]bool{}
	for _, v := range p.Env {
		if v.Source != EnvFromSup && v.Source != EnvFromFrontmatter {
			set[v.Name] = true
		}
	}
	for _, k := range p.Frontmatter.EnvOrder {
		os.Expand(p.Frontmatter.Env[k], func(name string) string {
			if name != "$" && !reservedEnvName(name) {
				set[name] = true
			}
			return ""
		})
	}
	return slices.Sorted(maps.Keys(set))
}

// TerminalNames describe the terminal a program runs in: a new tmux
// window sets its own, which a route never overrides with the caller's.
var TerminalNames = []string{"TERM", "COLORTERM", "TMUX", "TMUX_PANE"}

// OnlyNames keeps the variables of environ that names lists, and the
// terminal's own (TerminalNames): `sup start --caller-env` (a route's
// start) runs with the caller's variables, never what else the tmux server
// it runs in has in its environment.
func OnlyNames(environ, names []string) []string {
	var out []string
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); slices.Contains(names, k) || slices.Contains(TerminalNames, k) {
			out = append(out, kv)
		}
	}
	return out
}
