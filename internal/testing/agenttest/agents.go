//go:build linux

// Package agenttest runs the real agent CLIs (Claude Code, Codex, Gemini
// CLI) in tests, offline: it finds the pinned binaries `make agents` installed into
// .agents/, prepares private sandboxes (HOME, first-run screens answered,
// permission prompts on) pointed at a [fakemodel] stand-in, and starts an
// agent under `sup start` in a tmux pane in one call.
//
// Without the binaries a test skips, naming `make agents`; in CI (CI set)
// it fails instead, since driving the real agents is the point there.
// specs/testing.md tells what the agents do and how to extend the tests.
package agenttest

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// InstallHint is the command that installs the real agents.
const InstallHint = "make agents"

// AgentsEnv selects the agent CLIs the tests run: unset (or "pinned") the
// versions .agents/package.json pins, "latest" the newest published ones
// `make agents-latest` installs into .agents-latest/ (specs/testing.md,
// "Version drift").
const AgentsEnv = "SUP_AGENTS"

// Latest reports whether SUP_AGENTS=latest selects .agents-latest/. Any
// other value but "" and "pinned" panics: a typo must not silently test
// the pin.
func Latest() bool {
	switch v := os.Getenv(AgentsEnv); v {
	case "", "pinned":
		return false
	case "latest":
		return true
	default:
		panic(fmt.Sprintf("%s=%q: valid values are pinned (the default) and latest", AgentsEnv, v))
	}
}

// AgentsDir returns where the agent CLIs are installed: .agents/ at the
// module root (`make agents`, the pinned versions), or .agents-latest/
// with SUP_AGENTS=latest (`make agents-latest`).
func AgentsDir(t testing.TB) string {
	t.Helper()
	if Latest() {
		return filepath.Join(testutil.ModuleRoot(t), ".agents-latest")
	}
	return filepath.Join(testutil.ModuleRoot(t), ".agents")
}

// installHint is the command that installs the agents AgentsDir names.
func installHint() string {
	if Latest() {
		return "make agents-latest"
	}
	return InstallHint
}

// AgentBin returns the path of the native binary of the real agent CLI
// name ("claude", "codex", "gemini") installed under .agents/node_modules. When it
// is not installed the test fails in CI and is skipped elsewhere, with a
// message naming `make agents`; this is the only skip the real-agent tests
// allow.
func AgentBin(t testing.TB, name string) string {
	t.Helper()
	return agentBinIn(t, filepath.Join(AgentsDir(t), "node_modules"), name)
}

func agentBinIn(t testing.TB, nodeModules, name string) string {
	t.Helper()
	path, err := FindAgentBin(nodeModules, name)
	if err == nil {
		return path
	}
	msg := fmt.Sprintf("real %s not installed: %v; install the agent CLIs with `%s`", name, err, installHint())
	testutil.Missing(t, "%s", msg)
	return ""
}

// FindAgentBin finds the native executable called name below nodeModules
// (for "gemini", the script findGeminiScript returns).
// The npm packages ship their binaries in per-platform optional
// dependencies (@anthropic-ai/claude-code-linux-x64/claude,
// @openai/codex-linux-x64/vendor/<triple>/bin/codex) and only link a
// wrapper or stub into .bin, whose postinstall may not have run: so look
// for the real file, an executable ELF named name, wherever the platform
// package put it. With several (glibc and musl builds) the first in path
// order wins.
func FindAgentBin(nodeModules, name string) (string, error) {
	// A worktree's node_modules may be a symlink to a shared install;
	// WalkDir does not follow a symlinked root.
	nodeModules, err := filepath.EvalSymlinks(nodeModules)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", name, err)
	}
	if name == "gemini" {
		return findGeminiScript(nodeModules)
	}
	// WalkDir does not follow a symlinked root (a worktree's
	// .agents/node_modules linking to a shared install).
	if real, err := filepath.EvalSymlinks(nodeModules); err == nil {
		nodeModules = real
	}
	var found []string
	err = filepath.WalkDir(nodeModules, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != name || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Mode()&0o111 != 0 && isELF(path) {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("find %s under %s: %w", name, nodeModules, err)
	}
	if len(found) == 0 {
		return "", fmt.Errorf("no native %s executable under %s", name, nodeModules)
	}
	sort.Strings(found)
	return found[0], nil
}

// isELF reports whether path is an ELF file (not a shell or node stub).
func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, len(elf.ELFMAG))
	if _, err := io.ReadFull(f, magic); err != nil {
		return false
	}
	return bytes.Equal(magic, []byte(elf.ELFMAG))
}

// prepareAgent is what every Start helper does first: fail or skip without
// the agent's binary, start the model stand-in (closed when the test ends)
// and make the project directory, by its real path as the agents record it.
func prepareAgent(t testing.TB, name string) (*fakemodel.Server, string) {
	t.Helper()
	AgentBin(t, name)
	model, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return model, claudeProjectKey(dir)
}

// geminiScript is Gemini CLI's entry point inside its npm package. Gemini
// CLI is JavaScript (one bundle, run by node), not a native binary.
const geminiScript = "@google/gemini-cli/bundle/gemini.js"

// findGeminiScript returns Gemini CLI's bundled script below nodeModules,
// provided node, which runs it, is in PATH.
func findGeminiScript(nodeModules string) (string, error) {
	path := filepath.Join(nodeModules, geminiScript)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("find gemini: %w", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("gemini needs node (>= 20) in PATH: %w", err)
	}
	return path, nil
}
