//go:build linux

package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const testSup = "/opt/sup/bin/sup"

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testEnv(t *testing.T) Env {
	t.Helper()
	home := t.TempDir()
	env, err := EnvFrom(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// install prepares and applies, failing the test on an error.
func install(t *testing.T, env Env, target Target, o Options) (*Plan, []Written) {
	t.Helper()
	if o.Sup == "" {
		o.Sup = testSup
	}
	p, err := Prepare(env, target, o)
	if err != nil {
		t.Fatalf("prepare %s: %v", target, err)
	}
	w, err := p.Apply(testNow)
	if err != nil {
		t.Fatalf("apply %s: %v", target, err)
	}
	return p, w
}

// inspectFile parses a hooks file and checks every event of spec has
// exactly one sup entry running command.
func checkComplete(t *testing.T, path string, spec *jsonSpec, command string) *jnode {
	t.Helper()
	data := []byte(readTestFile(t, path))
	doc, err := parseJSON(path, data)
	if err != nil {
		t.Fatalf("the written file does not parse: %v\n%s", err, data)
	}
	in, err := spec.inspect(path, doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.missing) > 0 || !slices.Equal(in.commands, []string{command}) {
		t.Fatalf("missing %v, commands %q; file:\n%s", in.missing, in.commands, data)
	}
	hooks := doc.get("hooks")
	for _, ev := range spec.events {
		n := 0
		supEntries(hooks.get(ev.name), func(_, _ *jnode, _, _ int, _ string) bool { n++; return false })
		if n != 1 {
			t.Fatalf("%s has %d sup entries, want 1:\n%s", ev.name, n, data)
		}
	}
	return doc
}

func TestClaudeAbsentFile(t *testing.T) {
	env := testEnv(t)
	target := Target{Agent: Claude, Scope: User}
	p, w := install(t, env, target, Options{})
	path := filepath.Join(env.Home, ".claude", "settings.json")
	if len(p.Changes) != 1 || p.Changes[0].Exists || p.Changes[0].Path != path {
		t.Fatalf("changes %+v", p.Changes)
	}
	if len(w) != 1 || w[0].Backup != "" {
		t.Fatalf("written %+v, want no backup of a new file", w)
	}
	want := `{
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/sup/bin/sup hook --agent claude"
          }
        ]
      }
    ],
`
	got := readTestFile(t, path)
	if !strings.HasPrefix(got, want) || !strings.Contains(got, `"matcher": "*",`) || !strings.HasSuffix(got, "}\n") {
		t.Fatalf("new settings.json:\n%s", got)
	}
	checkComplete(t, path, &claudeSpec, "/opt/sup/bin/sup hook --agent claude")
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("a new user settings file has mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestClaudeEmptyFile(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Home, ".claude", "settings.json")
	writeTestFile(t, path, "")
	_, w := install(t, env, Target{Agent: Claude, Scope: User}, Options{})
	checkComplete(t, path, &claudeSpec, "/opt/sup/bin/sup hook --agent claude")
	if w[0].Backup != path+".sup-backup-20260102-030405" {
		t.Fatalf("backup %q", w[0].Backup)
	}
	if readTestFile(t, w[0].Backup) != "" {
		t.Fatal("the backup is not the old (empty) file")
	}
}

// An existing file keeps its other keys, their order and their bytes, and
// its other hooks, even in the events sup adds to.
func TestClaudeKeepsUnrelated(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Home, ".claude", "settings.json")
	old := `{
    "permissions": {"allow": ["Bash(ls:*)"], "defaultMode": "default"},
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]}
        ],
        "SubagentStop": [{"hooks": [{"type": "command", "command": "say sub"}]}]
    },
    "env": {"A": "x\u00e9<y>", "N": 1.50e3},
    "zeta": null
}`
	writeTestFile(t, path, old)
	install(t, env, Target{Agent: Claude, Scope: User}, Options{})
	got := readTestFile(t, path)
	for _, keep := range []string{
		`    "permissions": {"allow": ["Bash(ls:*)"], "defaultMode": "default"},` + "\n    \"model\": \"opus\",\n    \"hooks\": {\n",
		`            {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]},`,
		`        "SubagentStop": [{"hooks": [{"type": "command", "command": "say sub"}]}],`,
		`    "env": {"A": "x\u00e9<y>", "N": 1.50e3},` + "\n    \"zeta\": null\n}",
	} {
		if !strings.Contains(got, keep) {
			t.Fatalf("lost %q:\n%s", keep, got)
		}
	}
	// The indentation of the file (4 spaces) is kept for what sup adds.
	if !strings.Contains(got, "\n        \"SessionStart\": [\n            {\n") {
		t.Fatalf("sup's entries are not indented like the file:\n%s", got)
	}
	if strings.HasSuffix(got, "\n") {
		t.Fatal("a final newline was added to a file without one")
	}
	doc := checkComplete(t, path, &claudeSpec, "/opt/sup/bin/sup hook --agent claude")
	if !slices.Equal(doc.keys, []string{"permissions", "model", "hooks", "env", "zeta"}) {
		t.Fatalf("top-level keys %v", doc.keys)
	}
	pre := doc.get("hooks").get("PreToolUse")
	if len(pre.vals) != 2 {
		t.Fatalf("PreToolUse has %d groups, want the user's and sup's", len(pre.vals))
	}
	if c, _ := pre.vals[0].get("hooks").vals[0].get("command").str(); c != "guard.sh" {
		t.Fatalf("the user's PreToolUse hook is now %q", c)
	}
}

func TestIdempotent(t *testing.T) {
	for _, a := range Agents {
		t.Run(string(a), func(t *testing.T) {
			env := testEnv(t)
			target := Target{Agent: a, Scope: User}
			install(t, env, target, Options{})
			paths, _ := env.Paths(target)
			before := map[string]string{}
			for _, p := range paths {
				before[p] = readTestFile(t, p)
			}
			p, err := Prepare(env, target, Options{Sup: testSup})
			if err != nil {
				t.Fatal(err)
			}
			if !p.Installed() || len(p.Diff()) != 0 || !slices.Equal(p.Current, paths) {
				t.Fatalf("second prepare: changes %+v, current %v", p.Changes, p.Current)
			}
			if w, err := p.Apply(testNow); err != nil || len(w) != 0 {
				t.Fatalf("second apply wrote %v, %v", w, err)
			}
			for _, path := range paths {
				if readTestFile(t, path) != before[path] {
					t.Fatalf("%s changed", path)
				}
				if m, _ := filepath.Glob(path + BackupSuffix + "*"); len(m) != 0 {
					t.Fatalf("backups %v of an unchanged file", m)
				}
			}
		})
	}
}

// A file with some of sup's entries, one of them running an older sup and
// one event holding two sup entries, is completed and cleaned up.
func TestPartialCompleted(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Home, ".claude", "settings.json")
	writeTestFile(t, path, `{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "say done"}, {"type": "command", "command": "/old/sup hook"}]}
    ],
    "SessionStart": [
      {"hooks": [{"type": "command", "command": "/opt/sup/bin/sup hook --agent claude"}]},
      {"hooks": [{"type": "command", "command": "sup hook --agent claude"}]}
    ]
  }
}
`)
	p, _ := install(t, env, Target{Agent: Claude, Scope: User}, Options{})
	want := "add UserPromptSubmit, PreToolUse, PostToolUse, PermissionRequest, Notification, Elicitation, PermissionDenied, StopFailure, SessionEnd; " +
		"point Stop at /opt/sup/bin/sup hook --agent claude; drop duplicate sup entries of SessionStart"
	if p.Changes[0].Summary != want {
		t.Fatalf("summary %q", p.Changes[0].Summary)
	}
	doc := checkComplete(t, path, &claudeSpec, "/opt/sup/bin/sup hook --agent claude")
	stop := doc.get("hooks").get("Stop")
	if len(stop.vals) != 1 || len(stop.vals[0].get("hooks").vals) != 2 {
		t.Fatalf("Stop should still be one group with the user's hook and sup's:\n%s", readTestFile(t, path))
	}
	if len(doc.get("hooks").get("SessionStart").vals) != 1 {
		t.Fatal("the emptied duplicate group was kept")
	}
}

func TestMalformedJSON(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Home, ".claude", "settings.json")
	bad := "{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}\n"
	writeTestFile(t, path, bad)
	_, err := Prepare(env, Target{Agent: Claude, Scope: User}, Options{Sup: testSup})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Path != path || se.Line != 3 {
		t.Fatalf("error %v, want a SyntaxError at %s line 3", err, path)
	}
	if !strings.HasPrefix(err.Error(), path+":3:") {
		t.Fatalf("error %q does not start with file:line", err)
	}
	if readTestFile(t, path) != bad {
		t.Fatal("the malformed file was changed")
	}
}

func TestWrongTypes(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{`[]`, "the top level is an array, not an object"},
		{`{"hooks": []}`, `"hooks" is an array, not an object`},
		{`{"hooks": {"Stop": {"hooks": []}}}`, `"hooks.Stop" is an object, not an array`},
		{`{"hooks": {"SessionStart": [], "Stop": "x"}}`, `"hooks.Stop" is a string, not an array`},
	} {
		env := testEnv(t)
		path := filepath.Join(env.Home, ".claude", "settings.json")
		writeTestFile(t, path, tc.content)
		_, err := Prepare(env, Target{Agent: Claude, Scope: User}, Options{Sup: testSup})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s: error %v, want %q", tc.content, err, tc.want)
		}
	}
}

func TestGeminiComments(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.GeminiDir, "settings.json")
	writeTestFile(t, path, "{\n  // my theme\n  \"theme\": \"dark\" /* yes */\n}\n")
	_, err := Prepare(env, Target{Agent: Gemini, Scope: User}, Options{Sup: testSup})
	if err == nil || !strings.Contains(err.Error(), "has comments") {
		t.Fatalf("error %v, want the comments explained", err)
	}
}

func TestGeminiEntries(t *testing.T) {
	env := testEnv(t)
	dir := t.TempDir()
	install(t, env, Target{Agent: Gemini, Scope: Project, Dir: dir}, Options{})
	path := filepath.Join(dir, ".gemini", "settings.json")
	doc := checkComplete(t, path, &geminiSpec, "/opt/sup/bin/sup hook --agent gemini")
	g := doc.get("hooks").get("AfterAgent").vals[0]
	h := g.get("hooks").vals[0]
	if g.get("matcher") != nil || !slices.Equal(h.keys, []string{"name", "type", "command"}) {
		t.Fatalf("gemini entry:\n%s", readTestFile(t, path))
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("a new project file has mode %v, want 0644", fi.Mode().Perm())
	}
}

func TestCodexUser(t *testing.T) {
	env := testEnv(t)
	p, _ := install(t, env, Target{Agent: Codex, Scope: User}, Options{})
	if len(p.Changes) != 2 || !strings.Contains(strings.Join(p.Notes, "\n"), "Hooks need review") {
		t.Fatalf("plan %+v", p)
	}
	toml := readTestFile(t, filepath.Join(env.CodexHome, "config.toml"))
	if toml != `notify = ["/opt/sup/bin/sup", "hook", "--agent", "codex"]`+"\n" {
		t.Fatalf("config.toml:\n%s", toml)
	}
	doc := checkComplete(t, filepath.Join(env.CodexHome, "hooks.json"), &codexSpec, "/opt/sup/bin/sup hook --agent codex")
	if doc.get("hooks").get("PreToolUse").vals[0].get("matcher") != nil {
		t.Fatal("codex entries carry a matcher")
	}
}

func TestCodexProjectHooksOnly(t *testing.T) {
	env := testEnv(t)
	dir := t.TempDir()
	p, _ := install(t, env, Target{Agent: Codex, Scope: Project, Dir: dir}, Options{})
	if len(p.Changes) != 1 || p.Changes[0].Path != filepath.Join(dir, ".codex", "hooks.json") {
		t.Fatalf("changes %+v", p.Changes)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "ignores notify") {
		t.Fatalf("notes %q", p.Notes)
	}
	if _, err := os.Stat(filepath.Join(env.CodexHome, "config.toml")); err == nil {
		t.Fatal("a project install wrote the user's config.toml")
	}
}

func TestCodexNotifyEdits(t *testing.T) {
	const line = `notify = ["/opt/sup/bin/sup", "hook", "--agent", "codex"]`
	for _, tc := range []struct {
		name, old, want string
		force           bool
	}{
		{"empty", "", line + "\n", false},
		{"root keys and tables", "# mine\nmodel = \"o3\"  # best\n\n[features]\nx = true\n",
			"# mine\nmodel = \"o3\"  # best\n" + line + "\n\n[features]\nx = true\n", false},
		{"no final newline", "model = \"o3\"", "model = \"o3\"\n" + line + "\n", false},
		{"tables only", "# header\n\n# about features\n[features]\nx = true\n",
			"# header\n\n" + line + "\n\n# about features\n[features]\nx = true\n", false},
		{"table first", "[features]\nx = true\n", line + "\n\n[features]\nx = true\n", false},
		{"array tables", "model = \"o3\"\n[[a]]\nb = 1\n", "model = \"o3\"\n" + line + "\n\n[[a]]\nb = 1\n", false},
		{"ours elsewhere", "a = 1\nnotify = [\n  \"/old/sup\",\n  \"hook\",\n]  # sup\nb = 2\n",
			"a = 1\n" + line + "  # sup\nb = 2\n", false},
		{"forced", "notify = [\"notify-send\", \"codex\"]\n[x]\n", line + "\n[x]\n", true},
		{"a table key named notify", "[tui]\nnotify = true\n", line + "\n\n[tui]\nnotify = true\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			path := filepath.Join(env.CodexHome, "config.toml")
			writeTestFile(t, path, tc.old)
			install(t, env, Target{Agent: Codex, Scope: User}, Options{Force: tc.force})
			if got := readTestFile(t, path); got != tc.want {
				t.Fatalf("config.toml:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestCodexNotifyConflict(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.CodexHome, "config.toml")
	old := "notify = [\"notify-send\", \"Codex\"]\n"
	writeTestFile(t, path, old)
	_, err := Prepare(env, Target{Agent: Codex, Scope: User}, Options{Sup: testSup})
	var ce *NotifyConflictError
	if !errors.As(err, &ce) || ce.Current != `["notify-send", "Codex"]` || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("error %v, want a NotifyConflictError", err)
	}
	if _, err := os.Stat(filepath.Join(env.CodexHome, "hooks.json")); err == nil {
		t.Fatal("hooks.json was written despite the conflict")
	}
}

func TestMalformedTOML(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.CodexHome, "config.toml")
	writeTestFile(t, path, "model = \"o3\"\n\n[features\nx = 1\n")
	_, err := Prepare(env, Target{Agent: Codex, Scope: User}, Options{Sup: testSup})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || !strings.HasPrefix(err.Error(), path+":3:") {
		t.Fatalf("error %v, want a SyntaxError at line 3", err)
	}
}

func TestDryRunDiff(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.CodexHome, "config.toml")
	writeTestFile(t, path, "model = \"o3\"\n")
	p, err := Prepare(env, Target{Agent: Codex, Scope: User}, Options{Sup: testSup})
	if err != nil {
		t.Fatal(err)
	}
	d := string(p.Diff())
	for _, want := range []string{
		"--- " + path + "\n+++ " + path + "\n@@ -1,1 +1,2 @@\n model = \"o3\"\n+notify = [",
		"--- /dev/null\n+++ " + filepath.Join(env.CodexHome, "hooks.json") + "\n",
		"+    \"SessionStart\": [\n",
	} {
		if !strings.Contains(d, want) {
			t.Fatalf("diff lacks %q:\n%s", want, d)
		}
	}
	if readTestFile(t, path) != "model = \"o3\"\n" {
		t.Fatal("prepare wrote")
	}
	if _, err := os.Stat(filepath.Join(env.CodexHome, "hooks.json")); err == nil {
		t.Fatal("prepare created hooks.json")
	}
}

func TestBackupKeepsModeAndSymlink(t *testing.T) {
	env := testEnv(t)
	real := filepath.Join(t.TempDir(), "dotfiles", "claude-settings.json")
	writeTestFile(t, real, `{"model": "opus"}`)
	if err := os.Chmod(real, 0o640); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(env.ClaudeConfigDir, "settings.json")
	os.MkdirAll(env.ClaudeConfigDir, 0o700)
	if err := os.Symlink(real, path); err != nil {
		t.Fatal(err)
	}
	// A backup of the same second exists already.
	writeTestFile(t, path+".sup-backup-20260102-030405", "older")
	_, w := install(t, env, Target{Agent: Claude, Scope: User}, Options{})
	if w[0].Backup != path+".sup-backup-20260102-030405-2" || readTestFile(t, w[0].Backup) != `{"model": "opus"}` {
		t.Fatalf("backup %q", w[0].Backup)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	fi, _ := os.Stat(real)
	if fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	bi, _ := os.Stat(w[0].Backup)
	if bi.Mode().Perm() != 0o640 {
		t.Fatalf("backup mode %v, want 0640", bi.Mode().Perm())
	}
	checkComplete(t, real, &claudeSpec, "/opt/sup/bin/sup hook --agent claude")
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(real), ".*.tmp")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

func TestChangedMeanwhile(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Home, ".claude", "settings.json")
	writeTestFile(t, path, `{}`)
	p, err := Prepare(env, Target{Agent: Claude, Scope: User}, Options{Sup: testSup})
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, path, `{"model": "opus"}`)
	if _, err := p.Apply(testNow); err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Fatalf("apply over a changed file: %v", err)
	}
	if readTestFile(t, path) != `{"model": "opus"}` {
		t.Fatal("the newer file was overwritten")
	}
}

func TestProjectNeedsDir(t *testing.T) {
	if _, err := Prepare(testEnv(t), Target{Agent: Claude, Scope: Project}, Options{Sup: testSup}); err == nil {
		t.Fatal("a project target without a directory was accepted")
	}
}

func TestEnvFrom(t *testing.T) {
	vars := map[string]string{"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "GEMINI_CLI_HOME": "/g"}
	env, err := EnvFrom(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	if env != (Env{Home: "/h", ClaudeConfigDir: "/c", CodexHome: "/x", GeminiDir: "/g/.gemini"}) {
		t.Fatalf("env %+v", env)
	}
}

// dirNames lists dir's entries, for "nothing else was left here".
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestReadOnlyRefused: a read-only settings file (root included) is
// refused by name and mode before anything is written — not even the
// other file of a two-file plan, and no backup.
func TestReadOnlyRefused(t *testing.T) {
	env := testEnv(t)
	toml := filepath.Join(env.CodexHome, "config.toml")
	writeTestFile(t, toml, "model = \"o3\"\n")
	if err := os.Chmod(toml, 0o444); err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(env, Target{Agent: Codex, Scope: User}, Options{Sup: testSup})
	if err != nil || len(p.Changes) != 2 {
		t.Fatalf("plan %+v, %v: want hooks.json and config.toml (a dry run still shows them)", p, err)
	}
	w, err := p.Apply(testNow)
	var ro *ReadOnlyError
	if !errors.As(err, &ro) || len(w) != 0 {
		t.Fatalf("Apply: %v, wrote %v; want a ReadOnlyError and nothing written", err, w)
	}
	for _, want := range []string{toml, "is read-only", "mode 0444", "chmod u+w", "nothing written"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
	}
	if got := dirNames(t, env.CodexHome); len(got) != 1 || got[0] != "config.toml" {
		t.Fatalf("codex home holds %v, want config.toml alone (no hooks.json, no backup)", got)
	}
	if readTestFile(t, toml) != "model = \"o3\"\n" {
		t.Fatal("the read-only file changed")
	}
}

// TestDanglingSymlinkWritesThrough: a settings file that is a symlink to a
// file not yet created (a dotfiles repo) is written at the link's target,
// the link kept; a link whose target directory is missing is refused and
// nothing is created anywhere.
func TestDanglingSymlinkWritesThrough(t *testing.T) {
	env := testEnv(t)
	dotfiles := filepath.Join(t.TempDir(), "dotfiles")
	os.MkdirAll(dotfiles, 0o755)
	path := filepath.Join(env.ClaudeConfigDir, "settings.json")
	os.MkdirAll(env.ClaudeConfigDir, 0o700)
	// A relative link, as dotfiles managers make them: resolved from the
	// link's directory.
	rel, err := filepath.Rel(env.ClaudeConfigDir, filepath.Join(dotfiles, "claude.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, path); err != nil {
		t.Fatal(err)
	}
	_, w := install(t, env, Target{Agent: Claude, Scope: User}, Options{})
	if w[0].Backup != "" {
		t.Fatalf("backup %q of a file that did not exist", w[0].Backup)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the dangling symlink was replaced by a file")
	}
	checkComplete(t, filepath.Join(dotfiles, "claude.json"), &claudeSpec, testSup+" hook --agent claude")

	// Its far directory missing: refused, nothing created.
	env = testEnv(t)
	path = filepath.Join(env.ClaudeConfigDir, "settings.json")
	os.MkdirAll(env.ClaudeConfigDir, 0o700)
	gone := filepath.Join(t.TempDir(), "not-yet", "claude.json")
	if err := os.Symlink(gone, path); err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(env, Target{Agent: Claude, Scope: User}, Options{Sup: testSup})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Apply(testNow)
	var ro *ReadOnlyError
	if !errors.As(err, &ro) || !strings.Contains(err.Error(), "whose directory "+filepath.Dir(gone)+" does not exist") {
		t.Fatalf("dangling link into a missing dir: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(gone)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's far directory was created (%v)", err)
	}
}
