//go:build linux

package hooks

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestStatus(t *testing.T) {
	env := testEnv(t)
	proj := t.TempDir()
	sup := filepath.Join(t.TempDir(), "sup")
	writeTestFile(t, sup, "#!/bin/sh\n")
	// claude user: installed; claude project: partial.
	install(t, env, Target{Agent: Claude, Scope: User}, Options{Sup: sup})
	writeTestFile(t, filepath.Join(proj, ".claude", "settings.json"),
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sup hook --agent claude"}]}]}}`)
	// codex user: notify of another program, hooks.json malformed.
	writeTestFile(t, filepath.Join(env.CodexHome, "config.toml"), "notify = [\"notify-send\"]\n")
	writeTestFile(t, filepath.Join(env.CodexHome, "hooks.json"), "{\n  \"hooks\": \n")
	// gemini user: installed with a sup that is gone.
	install(t, env, Target{Agent: Gemini, Scope: User}, Options{Sup: "/gone/sup"})

	got := map[string]FileStatus{}
	for _, s := range Status(env, proj) {
		got[string(s.Agent)+" "+string(s.Scope)+" "+s.Kind] = s
	}
	if len(got) != 7 {
		t.Fatalf("%d rows: %+v", len(got), got)
	}
	check := func(key string, state State, f func(FileStatus) bool) {
		t.Helper()
		s := got[key]
		if s.State != state || (f != nil && !f(s)) {
			t.Errorf("%s: %+v, want %s", key, s, state)
		}
	}
	check("claude user hooks", Installed, func(s FileStatus) bool {
		return s.Exists && slices.Equal(s.Commands, []string{sup + " hook --agent claude"}) && s.Problem == ""
	})
	check("claude project hooks", Partial, func(s FileStatus) bool {
		return len(s.Missing) == 10 && !slices.Contains(s.Missing, "Stop") && s.Path == filepath.Join(proj, ".claude", "settings.json")
	})
	check("codex user notify", Conflict, func(s FileStatus) bool { return strings.Contains(s.Problem, "notify-send") })
	check("codex user hooks", Malformed, func(s FileStatus) bool { return strings.Contains(s.Problem, "hooks.json:3:") })
	check("codex project hooks", NotInstalled, func(s FileStatus) bool { return !s.Exists })
	check("gemini user hooks", Installed, func(s FileStatus) bool { return strings.Contains(s.Problem, "/gone/sup does not exist") })
	check("gemini project hooks", NotInstalled, nil)
}

// A project at $HOME shares the user's files: reported once.
func TestStatusProjectIsHome(t *testing.T) {
	env := testEnv(t)
	st := Status(env, env.Home)
	paths := map[string]bool{}
	for _, s := range st {
		if paths[s.Path] {
			t.Fatalf("%s reported twice", s.Path)
		}
		paths[s.Path] = true
	}
	// claude, codex notify and hooks, gemini: the project's are the same.
	if len(st) != 4 {
		t.Fatalf("%d rows: %+v", len(st), st)
	}
}

func TestIsSupCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"sup hook":                                    true,
		"sup hook --agent claude":                     true,
		"/usr/local/bin/sup hook --agent codex":       true,
		"'/home/me/my tools/sup' hook --agent gemini": true,
		`"/x y/sup" hook`:                             true,
		"sup-dev hook --agent claude":                 true,
		"sup ls":                                      false,
		"supervise hook":                              true, // a name starting with sup: close enough
		"say done":                                    false,
		"/bin/notsup hook":                            false,
		"echo sup hook":                               false,
		"":                                            false,
	} {
		if got := IsSupCommand(cmd); got != want {
			t.Errorf("IsSupCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestCommandQuoting(t *testing.T) {
	for sup, want := range map[string]string{
		"/usr/local/bin/sup":  "/usr/local/bin/sup hook --agent claude",
		"sup":                 "sup hook --agent claude",
		"/home/me/my bin/sup": "'/home/me/my bin/sup' hook --agent claude",
		"/tmp/it's/sup":       `'/tmp/it'\''s/sup' hook --agent claude`,
	} {
		got := Command(sup, Claude)
		if got != want {
			t.Errorf("Command(%q) = %q, want %q", sup, got, want)
		}
		if w := shellWords(got); w[0] != sup || !IsSupCommand(got) {
			t.Errorf("%q splits into %q", got, w)
		}
	}
}

func TestTOMLString(t *testing.T) {
	if got := tomlArray([]string{`/a "b"\c`, "x\ty"}); got != `["/a \"b\"\\c", "x\ty"]` {
		t.Fatalf("tomlArray = %s", got)
	}
}

// A setting that turns every hook off is reported beside the state.
func TestStatusHooksOff(t *testing.T) {
	env := testEnv(t)
	writeTestFile(t, filepath.Join(env.ClaudeConfigDir, "settings.json"), `{"disableAllHooks": true}`)
	writeTestFile(t, filepath.Join(env.CodexHome, "config.toml"), "[features]\nhooks = false\n")
	writeTestFile(t, filepath.Join(env.GeminiDir, "settings.json"), `{"hooksConfig": {"enabled": false}}`)
	want := map[string]string{
		"claude hooks": "disableAllHooks is true",
		"codex hooks":  "[features] hooks = false in config.toml",
		"gemini hooks": "hooksConfig.enabled is false",
	}
	for _, s := range Status(env, "") {
		w, ok := want[string(s.Agent)+" "+s.Kind]
		if ok && !strings.Contains(s.Problem, w) {
			t.Errorf("%s %s: problem %q, want %q", s.Agent, s.Kind, s.Problem, w)
		}
	}
}

// With a key twice, the agents (JSON.parse) read the last one; so does sup.
func TestDuplicateKeyLastWins(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.ClaudeConfigDir, "settings.json")
	writeTestFile(t, path, `{"hooks": {"Stop": 1}, "hooks": {}}`)
	install(t, env, Target{Agent: Claude, Scope: User}, Options{})
	got := readTestFile(t, path)
	if !strings.HasPrefix(got, "{\n  \"hooks\": {\"Stop\": 1},\n  \"hooks\": {\n    \"SessionStart\"") {
		t.Fatalf("settings:\n%s", got)
	}
}
