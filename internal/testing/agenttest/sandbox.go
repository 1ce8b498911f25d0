//go:build linux

package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// ClaudeAPIKey is the fake API key the Claude sandbox hands Claude Code; the
// stand-in ignores it. Claude Code remembers approved keys by their last 20
// characters.
const ClaudeAPIKey = "sk-ant-api03-sup-tests-fake-key-not-a-secret-0000000000"

// ClaudeEnv is what the Claude sandbox sets besides HOME, PATH and the
// model: what keeps Claude Code offline and quiet. Nonessential traffic
// off stops telemetry, error reporting, feature flags, the /api/hello
// probe and the title request; the marketplace auto-install (a GCS fetch,
// then a git clone) has its own switch, as has the auto-updater.
var ClaudeEnv = map[string]string{
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC":             "1",
	"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
	"DISABLE_AUTOUPDATER":                                  "1",
}

// ClaudeSandbox prepares a private HOME for Claude Code talking to the
// model stand-in at modelURL, and returns the environment to run it with
// (HOME, PATH with the claude binary first, ANTHROPIC_BASE_URL,
// ANTHROPIC_API_KEY, ClaudeEnv, then opts' Env) and the HOME.
//
// ~/.claude.json has onboarding done, the auto-mode offer seen, the API key
// approved (unless WithClaudeUnapprovedKey) and the WithTrust directories
// trusted; ~/.claude/settings.json sets permissions.defaultMode "default",
// so tool calls raise the permission prompt, merged with
// WithClaudeSettings. WithFirstRun writes only the approved key. It skips
// or fails like AgentBin when claude is not installed.
func ClaudeSandbox(t testing.TB, modelURL string, opts ...Option) (env map[string]string, home string) {
	t.Helper()
	o := NewOptions(opts...)
	bin := AgentBin(t, "claude")
	home = t.TempDir()

	approved := []string{ClaudeAPIKey[len(ClaudeAPIKey)-20:]}
	if o.ClaudeUnapprovedKey {
		approved = []string{}
	}
	projects := map[string]any{}
	for _, dir := range o.Trust {
		projects[claudeProjectKey(dir)] = map[string]any{"hasTrustDialogAccepted": true}
	}
	keys := map[string]any{"approved": approved, "rejected": []string{}}
	if o.FirstRun {
		// A new user's: the key approved, nothing else answered.
		writeSandboxJSON(t, filepath.Join(home, ".claude.json"), map[string]any{"customApiKeyResponses": keys})
	} else {
		state := map[string]any{
			"hasCompletedOnboarding": true,
			// The "Make auto mode your default permission mode?" offer that
			// 2.1.x shows once, at first start, before the prompt.
			"hasSeenAutoDefaultNudge": !o.ClaudeAutoModeOffer,
			"projects":                projects,
			"customApiKeyResponses":   keys,
		}
		writeSandboxJSON(t, filepath.Join(home, ".claude.json"), state)
		settings := map[string]any{"permissions": map[string]any{"defaultMode": "default"}}
		for k, v := range o.ClaudeSettings {
			settings[k] = v
		}
		writeSandboxJSON(t, filepath.Join(home, ".claude", "settings.json"), settings)
	}

	env = map[string]string{
		"HOME":               home,
		"PATH":               filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL": modelURL,
		"ANTHROPIC_API_KEY":  ClaudeAPIKey,
	}
	for k, v := range ClaudeEnv {
		env[k] = v
	}
	for k, v := range o.Env {
		env[k] = v
	}
	return env, home
}

// claudeProjectKey is how .claude.json names a project: its absolute path,
// symlinks resolved, as the process's cwd reads.
func claudeProjectKey(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// writeSandboxJSON writes v as indented JSON to path, creating its directory.
func writeSandboxJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("encode %s: %v", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		t.Fatalf("sandbox: %v", err)
	}
}
