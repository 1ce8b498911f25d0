//go:build linux

package hooks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/agenttest"
	"github.com/sup-tmux/sup/internal/testing/fakemodel"
)

// TestRealClaudeTakesInstalledHooks installs sup's hooks into a Claude Code
// sandbox (the user's settings, which the sandbox has already written, and
// a project's), has the real claude check them (`claude doctor` lists
// invalid settings, offline, in under a second), then runs one turn in
// print mode and checks that the hooks ran as `<sup> hook --agent claude`
// with Claude's payload on stdin. The hooks run a logging stand-in named
// sup-log, so the test needs neither a built sup nor a supervisor.
// Skipped without claude installed (see agenttest.AgentBin).
func TestRealClaudeTakesInstalledHooks(t *testing.T) {
	bin := agenttest.AgentBin(t, "claude")
	model, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	proj := t.TempDir()
	vars, home := agenttest.ClaudeSandbox(t, model.URL, agenttest.WithTrust(proj))

	logf := filepath.Join(t.TempDir(), "calls.log")
	stand := filepath.Join(t.TempDir(), "sup-log")
	writeTestFile(t, stand, "#!/bin/sh\n{ echo \"ARGS $*\"; cat; echo; } >> '"+logf+"'\n")
	if err := os.Chmod(stand, 0o755); err != nil {
		t.Fatal(err)
	}
	env := Env{Home: home, ClaudeConfigDir: filepath.Join(home, ".claude")}
	for _, target := range []Target{{Agent: Claude, Scope: User}, {Agent: Claude, Scope: Project, Dir: proj}} {
		p, err := Prepare(env, target, Options{Sup: stand})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Apply(time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	settings := readTestFile(t, filepath.Join(home, ".claude", "settings.json"))
	if !strings.Contains(settings, `"defaultMode": "default"`) {
		t.Fatalf("the sandbox's own settings were lost:\n%s", settings)
	}

	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = proj
		cmd.Env = claudeEnv(vars)
		cmd.Stdin = nil
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("doctor"); strings.Contains(out, "Invalid settings") || !strings.Contains(out, "Claude Code doctor") {
		t.Fatalf("claude doctor complains about the settings sup wrote:\n%s", out)
	}

	run("-p", "hello hooks")
	calls := readTestFile(t, logf)
	t.Logf("the hooks logged:\n%s", calls)
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "Stop"} {
		want := `"hook_event_name":"` + ev + `"`
		if !strings.Contains(calls, want) {
			t.Errorf("no %s hook ran; the hooks logged:\n%s", ev, calls)
		}
	}
	for _, line := range strings.Split(calls, "\n") {
		if strings.HasPrefix(line, "ARGS ") && line != "ARGS hook --agent claude" {
			t.Errorf("a hook ran with %q", line)
		}
	}
	// The user's and the project's entries are the same command: Claude
	// Code runs it once per event.
	if n := strings.Count(calls, `"hook_event_name":"Stop"`); n != 1 {
		t.Errorf("Stop ran %d times, want once", n)
	}
}

// claudeEnv is the sandbox's variables over a minimal environment (no
// developer's ANTHROPIC_* or CLAUDE_* leaks into the run).
func claudeEnv(vars map[string]string) []string {
	env := []string{"TERM=dumb", "LANG=C.UTF-8"}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// TestRealCodexTakesInstalledHooks installs sup's notify and hooks.json
// into a Codex sandbox (whose config.toml has root keys and tables), then
// runs one `codex exec` turn with --dangerously-bypass-hook-trust (the
// TUI would ask first: "Hooks need review") and checks that Codex parsed
// both: the hooks ran as `<sup> hook --agent codex` with the payload on
// stdin, and notify as `<sup> hook --agent codex <json>`.
func TestRealCodexTakesInstalledHooks(t *testing.T) {
	bin := agenttest.AgentBin(t, "codex")
	model, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	proj := t.TempDir()
	vars := agenttest.CodexSandbox(t, model.URL, proj)

	logf := filepath.Join(t.TempDir(), "calls.log")
	stand := filepath.Join(t.TempDir(), "sup-log")
	// notify passes its JSON as an argument (and nothing on stdin).
	writeTestFile(t, stand, "#!/bin/sh\nif [ $# -gt 3 ]; then echo \"NOTIFY $*\"; else echo \"ARGS $*\"; cat; echo; fi >> '"+logf+"'\n")
	if err := os.Chmod(stand, 0o755); err != nil {
		t.Fatal(err)
	}
	env := Env{Home: vars["HOME"], CodexHome: vars["CODEX_HOME"]}
	p, err := Prepare(env, Target{Agent: Codex, Scope: User}, Options{Sup: stand})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(time.Now()); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "hello hooks")
	cmd.Dir = proj
	cmd.Env = claudeEnv(vars)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	calls := readTestFile(t, logf)
	t.Logf("the hooks logged:\n%s", calls)
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "Stop"} {
		if !strings.Contains(calls, `"hook_event_name":"`+ev+`"`) {
			t.Errorf("no %s hook ran", ev)
		}
	}
	if !strings.Contains(calls, `NOTIFY hook --agent codex {"type":"agent-turn-complete"`) {
		t.Errorf("notify did not run sup's command")
	}
	for _, line := range strings.Split(calls, "\n") {
		if strings.HasPrefix(line, "ARGS ") && line != "ARGS hook --agent codex" {
			t.Errorf("a hook ran with %q", line)
		}
	}
}

// TestRealGeminiTakesInstalledHooks installs sup's hooks into a Gemini CLI
// sandbox (the user's settings.json, which the sandbox has already
// written, and a project's), runs one turn in non-interactive mode
// (`gemini -p`) and checks that the hooks ran as `<sup> hook --agent
// gemini` with Gemini's payload on stdin.
func TestRealGeminiTakesInstalledHooks(t *testing.T) {
	script := agenttest.AgentBin(t, "gemini")
	model, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	proj := t.TempDir()
	vars := agenttest.GeminiSandbox(t, model.URL, proj)

	logf := filepath.Join(t.TempDir(), "calls.log")
	stand := filepath.Join(t.TempDir(), "sup-log")
	writeTestFile(t, stand, "#!/bin/sh\n{ echo \"ARGS $*\"; cat; echo; } >> '"+logf+"'\n")
	if err := os.Chmod(stand, 0o755); err != nil {
		t.Fatal(err)
	}
	env := Env{Home: vars["HOME"], GeminiDir: filepath.Join(vars["GEMINI_CLI_HOME"], ".gemini")}
	for _, target := range []Target{{Agent: Gemini, Scope: User}, {Agent: Gemini, Scope: Project, Dir: proj}} {
		p, err := Prepare(env, target, Options{Sup: stand})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Apply(time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	settings := readTestFile(t, filepath.Join(vars["HOME"], ".gemini", "settings.json"))
	if !strings.Contains(settings, `"selectedType": "gemini-api-key"`) {
		t.Fatalf("the sandbox's own settings were lost:\n%s", settings)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-p", "hello hooks")
	cmd.Dir = proj
	cmd.Env = claudeEnv(vars)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok: hello hooks") {
		t.Fatalf("gemini -p: %v\n%s", err, out)
	}
	calls := readTestFile(t, logf)
	t.Logf("the hooks logged:\n%s", calls)
	for _, ev := range []string{"SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd"} {
		if !strings.Contains(calls, `"hook_event_name":"`+ev+`"`) {
			t.Errorf("no %s hook ran", ev)
		}
	}
	for _, line := range strings.Split(calls, "\n") {
		if strings.HasPrefix(line, "ARGS ") && line != "ARGS hook --agent gemini" {
			t.Errorf("a hook ran with %q", line)
		}
	}
	// The user's and the project's entries are the same command: Gemini
	// CLI runs it once per event.
	if n := strings.Count(calls, `"hook_event_name":"AfterAgent"`); n != 1 {
		t.Errorf("AfterAgent ran %d times, want once", n)
	}
}
