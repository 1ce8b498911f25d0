//go:build linux

package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sup-tmux/sup/hooks"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/tmux"
)

// MinTmux is the oldest tmux whose features sup uses (display-popup for
// `sup pick`, 3.2).
const MinTmux = "3.2"

var versionRE = regexp.MustCompile(`\d+\.\d+(?:\.\d+)?`)

// checkTmux: tmux installed and recent enough; on the user's server (the
// one in $TMUX, else the default one) focus-events and sup's key bindings.
func checkTmux(ctx context.Context, o *Options) []Finding {
	bin := lookPath(o, "tmux")
	if bin == "" {
		return []Finding{{Check: "tmux", Severity: Warning, Subject: "tmux",
			Message: "tmux is not on PATH: sup runs agents in tmux panes", Fix: "install tmux " + MinTmux + " or later"}}
	}
	var out []Finding
	v, err := runVersion(ctx, o, bin, "-V")
	switch {
	case err != nil:
		out = append(out, Finding{Check: "tmux", Severity: Warning, Subject: bin, Message: "tmux -V failed: " + err.Error()})
	case versionLess(v, MinTmux):
		out = append(out, Finding{Check: "tmux", Severity: Warning, Subject: bin,
			Message: fmt.Sprintf("tmux %s at %s: sup needs %s or later (display-popup for sup pick)", v, bin, MinTmux),
			Fix:     "upgrade tmux"})
	default:
		out = append(out, Finding{Check: "tmux", Severity: OK, Subject: bin, Message: fmt.Sprintf("tmux %s at %s", v, bin)})
	}
	srv := tmux.Caller(o.Getenv)
	tctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	focus, err := srv.Run(tctx, "show-options", "-gv", "focus-events")
	if err != nil {
		out = append(out, Finding{Check: "tmux", Severity: Info, Subject: "server",
			Message: "no tmux server is running (or it cannot be reached): options and key bindings checked in the config files only"})
		return append(out, keysInConfig(o))
	}
	if strings.TrimSpace(focus) != "on" {
		out = append(out, Finding{Check: "tmux", Severity: Warning, Subject: "focus-events",
			Message: "focus-events is off: agents cannot tell when you look at their pane (Claude Code warns about it)",
			Fix:     "add 'set -g focus-events on' to ~/.tmux.conf"})
	} else {
		out = append(out, Finding{Check: "tmux", Severity: OK, Subject: "focus-events", Message: "focus-events on"})
	}
	keys, err := srv.Run(tctx, "list-keys", "-T", "prefix")
	if err == nil && strings.Contains(keys, " next --client") && strings.Contains(keys, " pick --client") {
		out = append(out, Finding{Check: "tmux", Severity: OK, Subject: "keys", Message: "the queue's key bindings are loaded (prefix+Tab, g, S)"})
	} else {
		out = append(out, Finding{Check: "tmux", Severity: Info, Subject: "keys",
			Message: "the queue's key bindings are not loaded in the running tmux server",
			Fix:     "sup tmux-keys --install, then tmux source-file ~/.tmux.conf"})
	}
	return append(out, checkStatusLine(tctx, o, srv)...)
}

// keysInConfig says whether `sup tmux-keys --install` ran: its file exists
// and ~/.tmux.conf sources it.
func keysInConfig(o *Options) Finding {
	keys := paths.TmuxKeys(o.ConfigDir)
	conf := filepath.Join(o.Getenv("HOME"), ".tmux.conf")
	data, _ := os.ReadFile(conf) // Best effort: a missing file sources nothing.
	if _, err := os.Stat(keys); err == nil && bytes.Contains(data, []byte(keys)) {
		return Finding{Check: "tmux", Severity: OK, Subject: "keys", Message: conf + " sources sup's key bindings"}
	}
	return Finding{Check: "tmux", Severity: Info, Subject: "keys",
		Message: "the queue's key bindings are not installed", Fix: "sup tmux-keys --install"}
}

// checkAgents: each agent CLI on PATH, its version against the pin, and
// whether sup's hooks are installed for it.
func checkAgents(ctx context.Context, o *Options) []Finding {
	env, herr := hooks.EnvFrom(o.Getenv)
	var status []hooks.FileStatus
	if herr == nil {
		status = hooks.Status(env, o.ProjectDir)
	}
	results := make([][]Finding, len(hooks.Agents))
	var wg sync.WaitGroup
	for i, a := range hooks.Agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = checkAgent(ctx, o, a, status)
		}()
	}
	wg.Wait()
	var out []Finding
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

func checkAgent(ctx context.Context, o *Options, a hooks.Agent, status []hooks.FileStatus) []Finding {
	name := string(a)
	bin := lookPath(o, name)
	if bin == "" {
		return []Finding{{Check: "agent", Severity: Info, Subject: name, Message: name + " is not on PATH"}}
	}
	want := TestedVersions[name]
	var out []Finding
	v, err := npmVersion(bin, npmPackages[name])
	if err != nil {
		v, err = runVersion(ctx, o, bin, "--version")
	}
	switch {
	case err != nil:
		out = append(out, Finding{Check: "agent", Severity: Warning, Subject: name,
			Message: fmt.Sprintf("%s at %s: --version failed: %v", name, bin, err)})
	case v != want:
		out = append(out, Finding{Check: "agent", Severity: Warning, Subject: name,
			Message: fmt.Sprintf("%s %s at %s: sup was tested with %s; its screen rules may not match", name, v, bin, want),
			Fix:     fmt.Sprintf("npm install -g %s@%s", npmPackages[name], want)})
	default:
		out = append(out, Finding{Check: "agent", Severity: OK, Subject: name, Message: fmt.Sprintf("%s %s at %s (tested)", name, v, bin)})
	}
	return append(out, hookFinding(a, status))
}

// hookFinding: installed when, in some scope, every settings file of the
// agent has all of sup's hooks.
func hookFinding(a hooks.Agent, status []hooks.FileStatus) Finding {
	byScope := map[hooks.Scope][]hooks.FileStatus{}
	var states []string
	for _, s := range status {
		if s.Agent != a {
			continue
		}
		byScope[s.Scope] = append(byScope[s.Scope], s)
		states = append(states, fmt.Sprintf("%s %s", s.Path, strings.ReplaceAll(string(s.State), "_", " ")))
		if s.State == hooks.Malformed || s.State == hooks.Conflict {
			return Finding{Check: "hooks", Severity: Problem, Subject: string(a),
				Message: fmt.Sprintf("%s hooks: %s is %s: %s", a, s.Path, s.State, s.Problem),
				Fix:     "fix the file, then sup hooks install --user " + string(a)}
		}
	}
	for scope, files := range byScope {
		all := len(files) > 0
		for _, f := range files {
			all = all && f.State == hooks.Installed
		}
		if all {
			return Finding{Check: "hooks", Severity: OK, Subject: string(a), Message: fmt.Sprintf("%s hooks installed (%s)", a, scope)}
		}
	}
	return Finding{Check: "hooks", Severity: Warning, Subject: string(a),
		Message: fmt.Sprintf("%s hooks not installed (%s): sup reads its state from the screen only", a, strings.Join(states, "; ")),
		Fix:     "sup hooks install --user " + string(a)}
}

// npmVersion reads the version of an npm-installed CLI from its package's
// package.json (found from the resolved binary upwards): starting node for
// --version takes seconds on a busy machine, and doctor must be quick.
func npmVersion(bin, pkg string) (string, error) {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(real)
	for range 4 {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var p struct{ Name, Version string }
			if json.Unmarshal(data, &p) == nil && (p.Name == pkg || strings.HasPrefix(p.Name, pkg+"-")) && p.Version != "" {
				return platformSuffix.ReplaceAllString(p.Version, ""), nil
			}
		}
		dir = filepath.Dir(dir)
	}
	return "", fmt.Errorf("%s is not from the npm package %s", bin, pkg)
}

// platformSuffix is the platform a native binary's package adds to the
// agent's version (Codex's @openai/codex-linux-x64 is "@openai/codex"
// 0.171.0-linux-x64; Claude Code's is @anthropic-ai/claude-code-linux-x64
// 2.1.332): the agent's version is the number before it.
var platformSuffix = regexp.MustCompile(`-(linux|darwin|win32|windows|freebsd|android)(-[a-z0-9_]+)*$`)

// lookPath finds name in o's PATH; "" when it is not there.
func lookPath(o *Options, name string) string { return resolve(name, o.Getenv("PATH")) }

// runVersion runs bin with its version flag and returns the first version
// number it prints.
func runVersion(ctx context.Context, o *Options, bin, flag string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, flag).Output()
	if err != nil {
		return "", err
	}
	v := versionRE.FindString(string(out))
	if v == "" {
		return "", fmt.Errorf("no version number in %q", strings.TrimSpace(string(out)))
	}
	return v, nil
}

// versionLess compares dotted numbers: 3.1 < 3.2 < 3.10.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
