//go:build linux

package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readSandboxJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestClaudeSandbox(t *testing.T) {
	proj := t.TempDir()
	hooks := map[string]any{"Stop": []any{}}
	env, home := ClaudeSandbox(t, "http://127.0.0.1:9", WithTrust(proj), WithEnv("EXTRA", "1"),
		WithClaudeSettings(map[string]any{"hooks": hooks}))

	for k, want := range map[string]string{
		"HOME": home, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": ClaudeAPIKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "EXTRA": "1",
	} {
		if env[k] != want {
			t.Errorf("env %s = %q, want %q", k, env[k], want)
		}
	}
	if dir := filepath.Dir(AgentBin(t, "claude")); !strings.HasPrefix(env["PATH"], dir+":") {
		t.Errorf("PATH %q does not start with claude's dir %s", env["PATH"], dir)
	}

	cj := readSandboxJSON(t, filepath.Join(home, ".claude.json"))
	if cj["hasCompletedOnboarding"] != true || cj["hasSeenAutoDefaultNudge"] != true {
		t.Errorf(".claude.json first-run flags: %v", cj)
	}
	want := map[string]any{claudeProjectKey(proj): map[string]any{"hasTrustDialogAccepted": true}}
	if !reflect.DeepEqual(cj["projects"], want) {
		t.Errorf("projects %v, want %v", cj["projects"], want)
	}
	approved := cj["customApiKeyResponses"].(map[string]any)["approved"].([]any)
	if len(approved) != 1 || approved[0] != ClaudeAPIKey[len(ClaudeAPIKey)-20:] {
		t.Errorf("approved keys %v", approved)
	}

	settings := readSandboxJSON(t, filepath.Join(home, ".claude", "settings.json"))
	if settings["permissions"].(map[string]any)["defaultMode"] != "default" || settings["hooks"] == nil {
		t.Errorf("settings %v", settings)
	}
}

func TestClaudeSandboxUntrustedUnapproved(t *testing.T) {
	_, home := ClaudeSandbox(t, "http://127.0.0.1:9", WithClaudeUnapprovedKey())
	cj := readSandboxJSON(t, filepath.Join(home, ".claude.json"))
	if len(cj["projects"].(map[string]any)) != 0 {
		t.Errorf("projects %v, want none trusted", cj["projects"])
	}
	if approved := cj["customApiKeyResponses"].(map[string]any)["approved"].([]any); len(approved) != 0 {
		t.Errorf("approved keys %v, want none", approved)
	}
}
