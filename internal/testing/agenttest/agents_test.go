//go:build linux

package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

func TestFindAgentBin(t *testing.T) {
	nm := t.TempDir()
	// What npm leaves when claude's postinstall did not run: a stub in
	// the wrapper package, the binary in the platform package.
	writeSandboxFile(t, filepath.Join(nm, "@anthropic-ai", "claude-code", "bin", "claude.exe"), "#!/bin/sh\necho stub\n")
	writeSandboxFile(t, filepath.Join(nm, ".bin", "claude"), "#!/bin/sh\necho stub\n")
	if err := os.Chmod(filepath.Join(nm, ".bin", "claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	native := filepath.Join(nm, "@anthropic-ai", "claude-code-linux-x64", "claude")
	testutil.CopyExecutable(t, native)
	codex := filepath.Join(nm, "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
	testutil.CopyExecutable(t, codex)

	for name, want := range map[string]string{"claude": native, "codex": codex} {
		got, err := FindAgentBin(nm, name)
		if err != nil || got != want {
			t.Errorf("FindAgentBin(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	// Gemini CLI is a script, found at its package's entry point.
	if _, err := FindAgentBin(nm, "gemini"); err == nil || !strings.Contains(err.Error(), "gemini-cli/bundle/gemini.js") {
		t.Errorf("FindAgentBin(gemini) without the package: error %v", err)
	}
	script := filepath.Join(nm, "@google", "gemini-cli", "bundle", "gemini.js")
	writeSandboxFile(t, script, "#!/usr/bin/env node\n")
	if got, err := FindAgentBin(nm, "gemini"); err != nil || got != script {
		t.Errorf("FindAgentBin(gemini) = %q, %v; want %q", got, err, script)
	}
	// A symlinked node_modules (a worktree's, linking a shared install).
	link := filepath.Join(t.TempDir(), "node_modules")
	if err := os.Symlink(nm, link); err != nil {
		t.Fatal(err)
	}
	if got, err := FindAgentBin(link, "codex"); err != nil || !strings.HasSuffix(got, "/bin/codex") {
		t.Errorf("FindAgentBin(codex) through a symlink = %q, %v", got, err)
	}
	if _, err := FindAgentBin(filepath.Join(nm, "missing"), "claude"); err == nil {
		t.Error("FindAgentBin in a missing dir: no error")
	}
}

// recordTB records Skip and Fatal instead of ending the test.
type recordTB struct {
	testing.TB
	skipped, fatal string
}

func (r *recordTB) Helper()             {}
func (r *recordTB) Skip(args ...any)    { r.skipped = fmt.Sprint(args...) }
func (r *recordTB) Fatal(args ...any)   { r.fatal = fmt.Sprint(args...) }
func (r *recordTB) Failed() bool        { return r.fatal != "" }
func (r *recordTB) Logf(string, ...any) {}

func TestAgentBinMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "node_modules")
	t.Setenv("CI", "")
	r := &recordTB{TB: t}
	agentBinIn(r, missing, "claude")
	if r.fatal != "" || !strings.Contains(r.skipped, "make agents") {
		t.Fatalf("outside CI: skipped %q, fatal %q; want a skip naming make agents", r.skipped, r.fatal)
	}
	t.Setenv("CI", "true")
	r = &recordTB{TB: t}
	agentBinIn(r, missing, "claude")
	if r.skipped != "" || !strings.Contains(r.fatal, "make agents") {
		t.Fatalf("in CI: skipped %q, fatal %q; want a failure naming make agents", r.skipped, r.fatal)
	}
}
