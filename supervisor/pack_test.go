//go:build linux

package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnitProfileClassify: the built-in profiles carry their classifier
// packs, compiled at load; a user profile's classify: section replaces
// the built-in pack whole while its other fields overlay field by field.
func TestUnitProfileClassify(t *testing.T) {
	configDir := t.TempDir()
	for _, name := range []string{"claude", "codex", "gemini"} {
		_, pack, err := LoadProfile(configDir, name)
		if err != nil {
			t.Fatalf("LoadProfile(%s): %v", name, err)
		}
		if !pack.HasRules() || !pack.HasInput() {
			t.Errorf("%s: built-in pack without rules or input box", name)
		}
	}
	_, shell, err := LoadProfile(configDir, "shell")
	if err != nil {
		t.Fatal(err)
	}
	if shell == nil || !shell.OnlyPrompts() {
		t.Errorf("shell: want a pack of prompt rules only (the foreground process decides the rest), got %+v", shell)
	}

	unitWriteProfile(t, configDir, "claude", "classify:\n  rules:\n    - {name: mine, activity: busy, screen: working}\n")
	p, pack, err := LoadProfile(configDir, "claude")
	if err != nil {
		t.Fatal(err)
	}
	if rs := pack.Rules(); len(rs) != 1 || rs[0].Name != "mine" || pack.HasInput() {
		t.Errorf("user pack not replacing the built-in one whole: %+v", rs)
	}
	if len(p.Command) != 1 || p.Command[0] != "claude" {
		t.Errorf("Command = %q: the other fields must still come from the built-in profile", p.Command)
	}

	unitWriteProfile(t, configDir, "codex", "submit_delay: 1s\n")
	if _, pack, err := LoadProfile(configDir, "codex"); err != nil || !pack.HasRules() {
		t.Errorf("a user profile without classify: must keep the built-in pack (err %v)", err)
	}

	unitWriteProfile(t, configDir, "gemini", "classify:\n")
	if _, pack, err := LoadProfile(configDir, "gemini"); err != nil || pack != nil {
		t.Errorf("an empty classify: must remove the pack: %+v, %v", pack, err)
	}
}

func TestUnitProfileClassifyErrors(t *testing.T) {
	configDir := t.TempDir()
	tests := []struct {
		content  string
		contains []string
	}{
		{"classify:\n  rules:\n    - {name: spin, activity: busy, screen: '(unclosed'}\n",
			[]string{"profiles/claude.yaml", `rule "spin" (line 3)`, "screen: bad regex"}},
		{"classify:\n  rules:\n    - name: spin\n      activity: busy\n      scren: x\n",
			[]string{"profiles/claude.yaml", `rule "spin"`, "line 5: unknown key scren in rule (valid: "}},
		{"classify:\n  rules:\n    - {name: spin, activity: spinning, screen: x}\n",
			[]string{"profiles/claude.yaml", `rule "spin"`, `activity "spinning"`}},
		{"classify:\n  draft:\n    line: '^> '\n",
			[]string{"profiles/claude.yaml", "classify: draft (line 3)", "needs a capture group"}},
		{"classify:\n  rules: {}\ncommand: [claude]\n",
			[]string{"profiles/claude.yaml", "classify: rules (line 2): want a list of rules"}},
		{"classfy: {}\n",
			[]string{"profiles/claude.yaml", "unknown key classfy (valid: answers, busy_window, classify, command,"}},
	}
	for _, tt := range tests {
		unitWriteProfile(t, configDir, "claude", tt.content)
		_, _, err := LoadProfile(configDir, "claude")
		if err == nil {
			t.Errorf("%q: loaded", tt.content)
			continue
		}
		for _, c := range tt.contains {
			if !strings.Contains(err.Error(), c) {
				t.Errorf("%q: error %q lacks %q", tt.content, err, c)
			}
		}
	}
}

func unitWriteProfile(t *testing.T, configDir, name, content string) {
	t.Helper()
	dir := filepath.Join(configDir, "profiles")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
