//go:build linux

package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// unitPlanWorld is a temp tree for Resolve: an invocation dir, an XDG config
// home, a bin dir for the child's PATH and documents.
type unitPlanWorld struct {
	root, inv, xdg, configDir, bin string
}

func newUnitPlanWorld(t *testing.T) unitPlanWorld {
	t.Helper()
	root := unitTempRoot(t)
	w := unitPlanWorld{
		root: root,
		inv:  filepath.Join(root, "inv"),
		xdg:  filepath.Join(root, "xdg"),
		bin:  filepath.Join(root, "bin"),
	}
	w.configDir = filepath.Join(w.xdg, "sup")
	unitMkdirs(t, root, "inv", "xdg/sup", "bin")
	return w
}

func (w unitPlanWorld) environ(extra ...string) []string {
	return append([]string{
		"HOME=" + w.root,
		"PATH=" + w.bin,
		"XDG_CONFIG_HOME=" + w.xdg,
		"TERM=xterm",
		"AWS_SECRET_ACCESS_KEY=do-not-leak",
		"MY_VAR=mine",
	}, extra...)
}

func (w unitPlanWorld) doc(t *testing.T, rel, content string) string {
	t.Helper()
	p := filepath.Join(w.root, rel)
	unitWriteFile(t, p, content)
	return p
}

func (w unitPlanWorld) executable(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func unitEnvValue(t *testing.T, vars []EnvVar, name string) (string, bool) {
	t.Helper()
	for _, v := range vars {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

func TestUnitResolveBasic(t *testing.T) {
	w := newUnitPlanWorld(t)
	doc := w.doc(t, "docs/notes.md", "# Notes\n")
	p, err := Resolve(Options{
		Document:      doc,
		InvocationDir: w.inv,
		Environ:       w.environ(),
		SessionID:     "abc123def456",
		SocketPath:    "/run/sup/abc.sock",
	})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if p.SessionID != "abc123def456" || p.Document != doc || p.Name != "notes" {
		t.Errorf("SessionID, Document, Name = %q, %q, %q", p.SessionID, p.Document, p.Name)
	}
	if p.Workspace != "" || p.Role != "" || p.Command != nil {
		t.Errorf("Workspace, Role, Command = %q, %q, %q; want empty", p.Workspace, p.Role, p.Command)
	}
	if p.Profile.Name != "claude" || p.Profile.Source != "builtin" {
		t.Errorf("Profile = %+v, want built-in claude", p.Profile)
	}
	if !reflect.DeepEqual(p.Config, DefaultConfig()) {
		t.Errorf("Config = %+v, want the defaults", p.Config)
	}
	if p.CWD != filepath.Dir(doc) || p.CWDSource != CWDFromDocumentDir {
		t.Errorf("CWD = %q (%s), want %q (document_dir)", p.CWD, p.CWDSource, filepath.Dir(doc))
	}
	want := map[string]string{
		"SUP_SESSION":     "abc123def456",
		"SUP_DOCUMENT":    doc,
		"SUP_NAME":        "notes",
		"SUP_SOCKET":      "/run/sup/abc.sock",
		"PWD":             filepath.Dir(doc),
		"HOME":            w.root,
		"TERM":            "xterm",
		"PATH":            w.bin,
		"XDG_CONFIG_HOME": w.xdg,
	}
	for name, value := range want {
		if got, ok := unitEnvValue(t, p.Env, name); !ok || got != value {
			t.Errorf("env %s = %q (present %v), want %q", name, got, ok, value)
		}
	}
	for _, name := range []string{"AWS_SECRET_ACCESS_KEY", "MY_VAR"} {
		if _, ok := unitEnvValue(t, p.Env, name); ok {
			t.Errorf("env %s must be absent", name)
		}
	}
}

func TestUnitResolveDefaults(t *testing.T) {
	w := newUnitPlanWorld(t)
	w.doc(t, "inv/rel.md", "x")
	p, err := Resolve(Options{Document: "rel.md", InvocationDir: w.inv, Environ: w.environ()})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if want := filepath.Join(w.inv, "rel.md"); p.Document != want {
		t.Errorf("Document = %q, want %q (relative to the invocation dir)", p.Document, want)
	}
	if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(p.SessionID) {
		t.Errorf("generated SessionID = %q, want 12 hex digits", p.SessionID)
	}
	if v, _ := unitEnvValue(t, p.Env, "SUP_SESSION"); v != p.SessionID {
		t.Errorf("SUP_SESSION = %q, want %q", v, p.SessionID)
	}
	if _, ok := unitEnvValue(t, p.Env, "SUP_SOCKET"); ok {
		t.Error("SUP_SOCKET set without a socket path")
	}
	if a, b := NewSessionID(), NewSessionID(); a == b {
		t.Errorf("NewSessionID twice = %q", a)
	}
}

func TestUnitResolveNameDefault(t *testing.T) {
	w := newUnitPlanWorld(t)
	for base, want := range map[string]string{
		"notes.md":     "notes",
		"plan":         "plan",
		"a.b.md":       "a.b",
		"Task One.txt": "Task One",
	} {
		doc := w.doc(t, filepath.Join("names", base), "x")
		p, err := Resolve(Options{Document: doc, InvocationDir: w.inv, Environ: w.environ()})
		if err != nil {
			t.Fatalf("Resolve(%s): %v", base, err)
		}
		if p.Name != want {
			t.Errorf("Name for %q = %q, want %q", base, p.Name, want)
		}
		if v, _ := unitEnvValue(t, p.Env, "SUP_NAME"); v != want {
			t.Errorf("SUP_NAME for %q = %q, want %q", base, v, want)
		}
	}
}

func TestUnitResolveFrontmatter(t *testing.T) {
	w := newUnitPlanWorld(t)
	unitMkdirs(t, w.root, "proj/.sup", "proj/work")
	doc := w.doc(t, "proj/docs/task.md", `---
title: Task
sup:
  name: builder
  workspace: ws-1
  role: reviewer
  profile: codex
  cwd: ../work
  command: [codex, --full-auto]
  env:
    EXTRA: $HOME/extra
    TERM: dumb
  env_passthrough: [MY_*]
---
body
`)
	p, err := Resolve(Options{Document: doc, InvocationDir: w.inv, Environ: w.environ(), SessionID: "s1"})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if p.Name != "builder" || p.Workspace != "ws-1" || p.Role != "reviewer" {
		t.Errorf("Name, Workspace, Role = %q, %q, %q", p.Name, p.Workspace, p.Role)
	}
	if p.Profile.Name != "codex" {
		t.Errorf("Profile = %q, want codex", p.Profile.Name)
	}
	if want := filepath.Join(w.root, "proj/work"); p.CWD != want || p.CWDSource != CWDFromFrontmatter {
		t.Errorf("CWD = %q (%s), want %q (frontmatter)", p.CWD, p.CWDSource, want)
	}
	if !reflect.DeepEqual(p.Command, []string{"codex", "--full-auto"}) {
		t.Errorf("Command = %q", p.Command)
	}
	if p.Frontmatter.Name != "builder" {
		t.Errorf("Plan.Frontmatter not kept: %+v", p.Frontmatter)
	}
	for name, value := range map[string]string{
		"EXTRA":    w.root + "/extra",
		"TERM":     "dumb",
		"MY_VAR":   "mine",
		"SUP_NAME": "builder",
		"PWD":      filepath.Join(w.root, "proj/work"),
	} {
		if got, ok := unitEnvValue(t, p.Env, name); !ok || got != value {
			t.Errorf("env %s = %q (present %v), want %q", name, got, ok, value)
		}
	}
	if _, ok := unitEnvValue(t, p.Env, "AWS_SECRET_ACCESS_KEY"); ok {
		t.Error("AWS_SECRET_ACCESS_KEY must be absent")
	}
}

func TestUnitResolveCLIBeatsFrontmatter(t *testing.T) {
	w := newUnitPlanWorld(t)
	unitMkdirs(t, w.root, "proj/.sup", "proj/work", "inv/flagdir")
	doc := w.doc(t, "proj/docs/task.md", "---\nsup:\n  name: fm\n  workspace: fmws\n  role: fmrole\n  profile: codex\n  cwd: ../work\n  command: [fmcmd]\n---\n")
	p, err := Resolve(Options{
		Document:      doc,
		InvocationDir: w.inv,
		Environ:       w.environ(),
		Name:          "cli",
		Workspace:     "cliws",
		Role:          "clirole",
		Profile:       "gemini",
		CWD:           "flagdir",
		Command:       []string{"clicmd", "--x"},
	})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if p.Name != "cli" || p.Workspace != "cliws" || p.Role != "clirole" || p.Profile.Name != "gemini" {
		t.Errorf("Name, Workspace, Role, Profile = %q, %q, %q, %q", p.Name, p.Workspace, p.Role, p.Profile.Name)
	}
	if want := filepath.Join(w.inv, "flagdir"); p.CWD != want || p.CWDSource != CWDFromFlag {
		t.Errorf("CWD = %q (%s), want %q (cli_flag)", p.CWD, p.CWDSource, want)
	}
	if !reflect.DeepEqual(p.Command, []string{"clicmd", "--x"}) {
		t.Errorf("Command = %q, want the CLI's", p.Command)
	}
	if v, _ := unitEnvValue(t, p.Env, "SUP_NAME"); v != "cli" {
		t.Errorf("SUP_NAME = %q, want cli", v)
	}
}

func TestUnitResolveProjectRootAndConfig(t *testing.T) {
	w := newUnitPlanWorld(t)
	unitMkdirs(t, w.root, "proj/.sup")
	unitWriteFile(t, filepath.Join(w.configDir, "config.yaml"), "default_profile: shell\nstop_grace: 2s\n")
	unitWriteProfile(t, w.configDir, "shell", "env_passthrough: [MY_VAR]\n")
	doc := w.doc(t, "proj/a/b/c/deep.md", "plain\n")
	p, err := Resolve(Options{Document: doc, InvocationDir: w.inv, Environ: w.environ()})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if want := filepath.Join(w.root, "proj"); p.CWD != want || p.CWDSource != CWDFromProjectRoot {
		t.Errorf("CWD = %q (%s), want %q (project_root)", p.CWD, p.CWDSource, want)
	}
	if p.Profile.Name != "shell" || p.Config.StopGrace.String() != "2s" {
		t.Errorf("Profile %q, StopGrace %s; want shell from config.yaml, 2s", p.Profile.Name, p.Config.StopGrace)
	}
	if v, ok := unitEnvValue(t, p.Env, "MY_VAR"); !ok || v != "mine" {
		t.Errorf("MY_VAR = %q, %v; want it passed through by the user's shell profile", v, ok)
	}
	// The frontmatter's profile beats config.yaml's default_profile.
	doc2 := w.doc(t, "proj/fm.md", "---\nsup:\n  profile: gemini\n---\n")
	p, err = Resolve(Options{Document: doc2, InvocationDir: w.inv, Environ: w.environ()})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if p.Profile.Name != "gemini" {
		t.Errorf("Profile = %q, want gemini from the frontmatter", p.Profile.Name)
	}
}

func TestUnitResolveErrors(t *testing.T) {
	w := newUnitPlanWorld(t)
	good := w.doc(t, "docs/good.md", "x")
	badFM := w.doc(t, "docs/badfm.md", "---\nsup:\n  name: x\n  cwdd: y\n---\n")
	badCWD := w.doc(t, "docs/badcwd.md", "---\nsup:\n  cwd: ../nowhere\n---\n")
	badEnv := w.doc(t, "docs/badenv.md", "---\nsup:\n  env:\n    SUP_NAME: x\n---\n")
	badProfile := w.doc(t, "docs/badprofile.md", "---\nsup:\n  profile: nosuch\n---\n")
	unitMkdirs(t, w.root, "docs/adir")

	badConfig := newUnitPlanWorld(t)
	cfgPath := filepath.Join(badConfig.configDir, "config.yaml")
	unitWriteFile(t, cfgPath, "stop_grace: soon\n")
	badConfigDoc := badConfig.doc(t, "d.md", "x")

	tests := []struct {
		name     string
		o        Options
		contains []string
	}{
		{"missing DOC names the path", Options{Document: "docs/missing.md", InvocationDir: w.root, Environ: w.environ()},
			[]string{"does not exist", filepath.Join(w.root, "docs/missing.md")}},
		{"empty DOC", Options{InvocationDir: w.root, Environ: w.environ()}, []string{"DOC"}},
		{"DOC is a directory", Options{Document: filepath.Join(w.root, "docs/adir"), InvocationDir: w.root, Environ: w.environ()},
			[]string{"directory", filepath.Join(w.root, "docs/adir")}},
		{"bad frontmatter names file and line", Options{Document: badFM, InvocationDir: w.root, Environ: w.environ()},
			[]string{badFM + ":4:", "sup.cwdd"}},
		{"bad frontmatter cwd", Options{Document: badCWD, InvocationDir: w.root, Environ: w.environ()},
			[]string{"frontmatter sup.cwd", "does not exist", filepath.Join(w.root, "nowhere")}},
		{"bad --cwd", Options{Document: good, CWD: "nope", InvocationDir: w.inv, Environ: w.environ()},
			[]string{"--cwd flag", filepath.Join(w.inv, "nope")}},
		{"overlay of SUP_*", Options{Document: badEnv, InvocationDir: w.root, Environ: w.environ()},
			[]string{"badenv.md:4: sup.env: SUP_NAME is set by sup itself"}},
		{"unknown profile from frontmatter", Options{Document: badProfile, InvocationDir: w.root, Environ: w.environ()},
			[]string{`unknown profile "nosuch"`, "claude"}},
		{"unknown profile from CLI", Options{Document: good, Profile: "nosuch2", InvocationDir: w.root, Environ: w.environ()},
			[]string{`unknown profile "nosuch2"`}},
		{"bad config names the file", Options{Document: badConfigDoc, InvocationDir: badConfig.root, Environ: badConfig.environ()},
			[]string{cfgPath, "soon"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Resolve(tt.o)
			if err == nil {
				t.Fatalf("Resolve = %+v; want an error", p)
			}
			for _, c := range tt.contains {
				if !strings.Contains(err.Error(), c) {
					t.Errorf("error %q: want it to contain %q", err, c)
				}
			}
		})
	}
}

func TestUnitResolveArgv(t *testing.T) {
	w := newUnitPlanWorld(t)
	emptyBin := filepath.Join(w.root, "emptybin")
	otherBin := filepath.Join(w.root, "otherbin")
	unitMkdirs(t, w.root, "emptybin", "otherbin", "proj/.sup", "proj/tools")
	claudePath := w.executable(t, w.bin, "claude")
	w.executable(t, otherBin, "codex")
	toolPath := w.executable(t, filepath.Join(w.root, "proj/tools"), "tool")
	unitWriteFile(t, filepath.Join(emptyBin, "gemini"), "not executable") // mode 0644
	unitMkdirs(t, w.root, "emptybin/shdir")
	doc := w.doc(t, "proj/doc.md", "x")

	resolve := func(t *testing.T, o Options) *Plan {
		t.Helper()
		o.Document, o.InvocationDir = doc, w.inv
		if o.Environ == nil {
			o.Environ = w.environ()
		}
		p, err := Resolve(o)
		if err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		return p
	}

	t.Run("found in the child's PATH", func(t *testing.T) {
		p := resolve(t, Options{})
		argv, resumed, err := p.Argv("")
		if err != nil || resumed || !reflect.DeepEqual(argv, []string{claudePath}) {
			t.Errorf("Argv = %q, %v, %v; want [%s], false, nil", argv, resumed, err, claudePath)
		}
		const id = "0b7e5a4c-9f0e-4a51-8d2b-2c1e0f6a7b3d"
		argv, resumed, err = p.Argv(id)
		if err != nil || !resumed || !reflect.DeepEqual(argv, []string{claudePath, "--resume", id}) {
			t.Errorf("Argv(sess-9) = %q, %v, %v", argv, resumed, err)
		}
	})
	t.Run("later PATH entry", func(t *testing.T) {
		p := resolve(t, Options{Profile: "codex", Environ: []string{"PATH=" + emptyBin + ":" + w.bin + ":" + otherBin, "XDG_CONFIG_HOME=" + w.xdg}})
		argv, _, err := p.Argv("")
		if err != nil || argv[0] != filepath.Join(otherBin, "codex") {
			t.Errorf("Argv = %q, %v", argv, err)
		}
	})
	t.Run("PATH from the frontmatter overlay", func(t *testing.T) {
		fmDoc := w.doc(t, "proj/fm.md", "---\nsup:\n  profile: codex\n  env:\n    PATH: "+otherBin+":$PATH\n---\n")
		p, err := Resolve(Options{Document: fmDoc, InvocationDir: w.inv, Environ: w.environ()})
		if err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		argv, _, err := p.Argv("")
		if err != nil || argv[0] != filepath.Join(otherBin, "codex") {
			t.Errorf("Argv = %q, %v", argv, err)
		}
	})
	tests := []struct {
		name     string
		o        Options
		contains []string
	}{
		{"missing command names command and profile", Options{Profile: "codex"},
			[]string{`"codex"`, "profile codex", "not found in PATH", w.bin}},
		{"child's PATH, not the supervisor's", Options{Command: []string{"sh"}, Environ: []string{"PATH=" + emptyBin, "XDG_CONFIG_HOME=" + w.xdg}},
			[]string{`"sh"`, "profile shell"}},
		{"no PATH at all", Options{Environ: []string{"XDG_CONFIG_HOME=" + w.xdg}},
			[]string{`"claude"`, "profile claude"}},
		{"not executable is skipped", Options{Profile: "gemini", Environ: []string{"PATH=" + emptyBin, "XDG_CONFIG_HOME=" + w.xdg}},
			[]string{`"gemini"`, "profile gemini"}},
		{"a directory is not a program", Options{Command: []string{"shdir"}, Environ: []string{"PATH=" + emptyBin, "XDG_CONFIG_HOME=" + w.xdg}},
			[]string{`"shdir"`}},
		{"missing path with slash", Options{Command: []string{"./nope"}},
			[]string{`"./nope"`, filepath.Join(w.root, "proj/nope")}},
		{"an override is not expanded", Options{Command: []string{"$UNSET_PROGRAM"}},
			[]string{`"$UNSET_PROGRAM"`, "profile shell", "not found in PATH"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := resolve(t, tt.o)
			argv, _, err := p.Argv("")
			if err == nil {
				t.Fatalf("Argv = %q; want an error", argv)
			}
			for _, c := range tt.contains {
				if !strings.Contains(err.Error(), c) {
					t.Errorf("error %q: want it to contain %q", err, c)
				}
			}
		})
	}
	t.Run("relative path resolved against the child's cwd", func(t *testing.T) {
		p := resolve(t, Options{Command: []string{"tools/tool", "--flag"}})
		argv, _, err := p.Argv("")
		if err != nil || !reflect.DeepEqual(argv, []string{toolPath, "--flag"}) {
			t.Errorf("Argv = %q, %v; want [%s --flag]", argv, err, toolPath)
		}
	})
	t.Run("relative PATH entry resolved against the child's cwd", func(t *testing.T) {
		p := resolve(t, Options{Command: []string{"tool"}, Environ: []string{"PATH=tools", "XDG_CONFIG_HOME=" + w.xdg}})
		argv, _, err := p.Argv("")
		if err != nil || argv[0] != toolPath {
			t.Errorf("Argv = %q, %v; want %s", argv, err, toolPath)
		}
	})
	t.Run("absolute command", func(t *testing.T) {
		p := resolve(t, Options{Command: []string{toolPath}})
		argv, _, err := p.Argv("")
		if err != nil || argv[0] != toolPath {
			t.Errorf("Argv = %q, %v", argv, err)
		}
	})
	t.Run("shell profile expands SHELL from the child's env", func(t *testing.T) {
		p := resolve(t, Options{Profile: "shell", Environ: []string{"SHELL=" + toolPath, "XDG_CONFIG_HOME=" + w.xdg}})
		argv, resumed, err := p.Argv("ignored")
		if err != nil || resumed || !reflect.DeepEqual(argv, []string{toolPath}) {
			t.Errorf("Argv = %q, %v, %v; want [%s]", argv, resumed, err, toolPath)
		}
	})
}
