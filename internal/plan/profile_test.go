//go:build linux

package plan

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func unitWriteProfile(t *testing.T, configDir, name, content string) string {
	t.Helper()
	path := filepath.Join(configDir, "profiles", name+".yaml")
	unitWriteFile(t, path, content)
	return path
}

func TestUnitProfileBuiltins(t *testing.T) {
	configDir := t.TempDir()
	tests := []struct {
		name    string
		command []string
		resume  []string
	}{
		{"claude", []string{"claude"}, []string{"--resume", AgentSessionPlaceholder}},
		{"codex", []string{"codex"}, []string{"resume", AgentSessionPlaceholder}},
		{"gemini", []string{"gemini"}, []string{"--resume", AgentSessionPlaceholder}},
		{"shell", []string{"${SHELL:-/bin/sh}"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := LoadProfile(configDir, tt.name)
			if err != nil {
				t.Fatalf("LoadProfile(%s): %v", tt.name, err)
			}
			if p.Name != tt.name || p.Source != "builtin" {
				t.Errorf("Name, Source = %q, %q; want %q, builtin", p.Name, p.Source, tt.name)
			}
			if !reflect.DeepEqual(p.Command, tt.command) {
				t.Errorf("Command = %q, want %q", p.Command, tt.command)
			}
			if !reflect.DeepEqual(p.ResumeArgs, tt.resume) {
				t.Errorf("ResumeArgs = %q, want %q", p.ResumeArgs, tt.resume)
			}
			if len(p.EnvPassthrough) != 0 {
				t.Errorf("EnvPassthrough = %q, want none", p.EnvPassthrough)
			}
			for _, a := range p.ResumeArgs {
				for _, g := range []string{"--continue", "-c", "--last", "--resume-last"} {
					if a == g {
						t.Errorf("built-in resume_args use the global selector %s", g)
					}
				}
			}
		})
	}
	if AgentSessionPlaceholder != "{agent_session_id}" {
		t.Errorf("AgentSessionPlaceholder = %q", AgentSessionPlaceholder)
	}
}

func TestUnitProfileNames(t *testing.T) {
	configDir := t.TempDir()
	if got, want := ProfileNames(configDir), []string{"claude", "codex", "demo", "gemini", "shell"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ProfileNames without user dir = %v, want %v", got, want)
	}
	unitWriteProfile(t, configDir, "aider", "command: [aider]\n")
	unitWriteProfile(t, configDir, "claude", "env_passthrough: [X]\n")
	unitWriteProfile(t, configDir, "Bad Name", "command: [x]\n")
	unitWriteFile(t, filepath.Join(configDir, "profiles", "README.md"), "notes")
	if got, want := ProfileNames(configDir), []string{"aider", "claude", "codex", "demo", "gemini", "shell"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ProfileNames = %v, want %v", got, want)
	}
}

func TestUnitProfileUserOverride(t *testing.T) {
	tests := []struct {
		name, file string
		want       Profile
	}{
		{
			name: "env_passthrough only keeps command and resume_args",
			file: "env_passthrough: [AWS_PROFILE, MY_*]\n",
			want: Profile{Command: []string{"claude"}, ResumeArgs: []string{"--resume", AgentSessionPlaceholder}, EnvPassthrough: []string{"AWS_PROFILE", "MY_*"}},
		},
		{
			name: "command only keeps resume_args",
			file: "command: [claude, --model, opus]\n",
			want: Profile{Command: []string{"claude", "--model", "opus"}, ResumeArgs: []string{"--resume", AgentSessionPlaceholder}, EnvPassthrough: []string{}},
		},
		{
			name: "resume_args replaced, not appended",
			file: "resume_args: [-r, \"{agent_session_id}\"]\n",
			want: Profile{Command: []string{"claude"}, ResumeArgs: []string{"-r", AgentSessionPlaceholder}, EnvPassthrough: []string{}},
		},
		{
			name: "empty file overrides nothing",
			file: "",
			want: Profile{Command: []string{"claude"}, ResumeArgs: []string{"--resume", AgentSessionPlaceholder}, EnvPassthrough: []string{}},
		},
		{
			name: "comment-only file overrides nothing",
			file: "# my claude\n",
			want: Profile{Command: []string{"claude"}, ResumeArgs: []string{"--resume", AgentSessionPlaceholder}, EnvPassthrough: []string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			configDir := t.TempDir()
			path := unitWriteProfile(t, configDir, "claude", tt.file)
			p, err := LoadProfile(configDir, "claude")
			if err != nil {
				t.Fatalf("LoadProfile: %v", err)
			}
			if p.Source != path || p.Name != "claude" {
				t.Errorf("Name, Source = %q, %q; want claude, %q", p.Name, p.Source, path)
			}
			if !reflect.DeepEqual(p.Command, tt.want.Command) {
				t.Errorf("Command = %q, want %q", p.Command, tt.want.Command)
			}
			if !reflect.DeepEqual(p.ResumeArgs, tt.want.ResumeArgs) {
				t.Errorf("ResumeArgs = %q, want %q", p.ResumeArgs, tt.want.ResumeArgs)
			}
			if len(p.EnvPassthrough) != 0 || len(tt.want.EnvPassthrough) != 0 {
				if !reflect.DeepEqual(p.EnvPassthrough, tt.want.EnvPassthrough) {
					t.Errorf("EnvPassthrough = %q, want %q", p.EnvPassthrough, tt.want.EnvPassthrough)
				}
			}
		})
	}
	// An override in one config dir does not leak into another.
	if p, err := LoadProfile(t.TempDir(), "claude"); err != nil || p.Source != "builtin" || !reflect.DeepEqual(p.Command, []string{"claude"}) {
		t.Errorf("fresh LoadProfile(claude) = %+v, %v; want the built-in", p, err)
	}
}

func TestUnitProfileUserOnly(t *testing.T) {
	configDir := t.TempDir()
	path := unitWriteProfile(t, configDir, "aider", "command: [aider, --no-auto-commits]\nenv_passthrough: [AIDER_*]\n")
	p, err := LoadProfile(configDir, "aider")
	if err != nil {
		t.Fatalf("LoadProfile(aider): %v", err)
	}
	want := Profile{Name: "aider", Source: path, Command: []string{"aider", "--no-auto-commits"}, EnvPassthrough: []string{"AIDER_*"}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("LoadProfile(aider) = %+v, want %+v", p, want)
	}
	if argv, resumed := p.Argv(nil, "sess-1", nil); resumed || !reflect.DeepEqual(argv, want.Command) {
		t.Errorf("Argv without resume_args = %q, %v; want %q, false", argv, resumed, want.Command)
	}
}

func TestUnitProfileErrors(t *testing.T) {
	tests := []struct {
		name     string
		profile  string
		files    map[string]string // profile name → file content
		contains []string
		path     bool // the error must name the user file
	}{
		{name: "unknown profile lists available", profile: "nosuch", files: map[string]string{"mine": "command: [m]\n"},
			contains: []string{`unknown profile "nosuch"`, "available: claude, codex, demo, gemini, mine, shell"}},
		{name: "typo key in user override", profile: "claude", files: map[string]string{"claude": "comand: [claude]\n"},
			contains: []string{"comand"}, path: true},
		{name: "typo key in user-only profile", profile: "mine", files: map[string]string{"mine": "command: [m]\nresume_arg: [x]\n"},
			contains: []string{"resume_arg"}, path: true},
		{name: "malformed YAML", profile: "mine", files: map[string]string{"mine": "command: [m\n"},
			path: true},
		{name: "command wrong type", profile: "mine", files: map[string]string{"mine": "command: {a: b}\n"},
			path: true},
		{name: "user-only profile without command", profile: "mine", files: map[string]string{"mine": "env_passthrough: [X]\n"},
			contains: []string{"command must be a non-empty list"}, path: true},
		{name: "override empties command", profile: "claude", files: map[string]string{"claude": "command: []\n"},
			contains: []string{"command must be a non-empty list"}, path: true},
		{name: "empty program name", profile: "mine", files: map[string]string{"mine": "command: [\"\"]\n"},
			contains: []string{"command must be a non-empty list"}},
		{name: "resume_args without placeholder", profile: "mine", files: map[string]string{"mine": "command: [m]\nresume_args: [--resume, latest]\n"},
			contains: []string{"resume_args must contain {agent_session_id}"}},
		{name: "unknown_after too short", profile: "claude", files: map[string]string{"claude": "unknown_after: 100ms\n"},
			contains: []string{"unknown_after 100ms: must be a duration between 500ms and 1m, such as 3s"}, path: true},
		{name: "unknown_after not a duration", profile: "claude", files: map[string]string{"claude": "unknown_after: soon\n"},
			contains: []string{"unknown_after", "soon"}, path: true},
		{name: "codex resume --last", profile: "codex", files: map[string]string{"codex": "resume_args: [resume, --last]\n"},
			contains: []string{"resume_args"}},
		{name: "global selector --continue", profile: "claude", files: map[string]string{"claude": "resume_args: [--continue, --resume, \"{agent_session_id}\"]\n"},
			contains: []string{"global selector --continue"}},
		{name: "global selector -c", profile: "mine", files: map[string]string{"mine": "command: [m]\nresume_args: [-c, \"{agent_session_id}\"]\n"},
			contains: []string{"global selector -c"}},
		{name: "global selector --last", profile: "codex", files: map[string]string{"codex": "resume_args: [resume, --last, \"{agent_session_id}\"]\n"},
			contains: []string{"global selector --last"}},
		{name: "global selector --resume-last", profile: "gemini", files: map[string]string{"gemini": "resume_args: [--resume-last, \"{agent_session_id}\"]\n"},
			contains: []string{"global selector --resume-last"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			configDir := t.TempDir()
			paths := map[string]string{}
			for name, content := range tt.files {
				paths[name] = unitWriteProfile(t, configDir, name, content)
			}
			p, err := LoadProfile(configDir, tt.profile)
			if err == nil {
				t.Fatalf("LoadProfile(%s) = %+v; want an error", tt.profile, p)
			}
			msg := err.Error()
			for _, c := range tt.contains {
				if !strings.Contains(msg, c) {
					t.Errorf("error %q: want it to contain %q", msg, c)
				}
			}
			if tt.path && !strings.Contains(msg, paths[tt.profile]) {
				t.Errorf("error %q: want it to name %s", msg, paths[tt.profile])
			}
		})
	}
}

func TestUnitProfileBadName(t *testing.T) {
	configDir := t.TempDir()
	unitWriteFile(t, filepath.Join(configDir, "evil.yaml"), "command: [evil]\n")
	for _, name := range []string{"", "Claude", "../evil", "a/b", "-x", "_x", "claude.yaml", "my profile", "claude\n"} {
		_, err := LoadProfile(configDir, name)
		if err == nil {
			t.Errorf("LoadProfile(%q): want an error", name)
			continue
		}
		if !strings.Contains(err.Error(), "name must match") {
			t.Errorf("LoadProfile(%q) error %q: want it to explain the name rule", name, err)
		}
	}
	for _, name := range []string{"a", "0", "my-agent_2"} {
		unitWriteProfile(t, configDir, name, "command: [x]\n")
		if _, err := LoadProfile(configDir, name); err != nil {
			t.Errorf("LoadProfile(%q): %v", name, err)
		}
	}
}

func TestUnitProfileArgv(t *testing.T) {
	claude := Profile{Name: "claude", Command: []string{"claude"}, ResumeArgs: []string{"--resume", AgentSessionPlaceholder}}
	uuidClaude := claude
	uuidClaude.ResumeIDPattern = UUIDPattern
	shell := Profile{Name: "shell", Command: []string{"${SHELL:-/bin/sh}"}}
	embedded := Profile{Name: "e", Command: []string{"agent"}, ResumeArgs: []string{"--session={agent_session_id}", "--id", "{agent_session_id}"}}
	tests := []struct {
		name        string
		profile     Profile
		override    []string
		id          string
		env         map[string]string
		want        []string
		wantResumed bool
	}{
		{"no id starts fresh", claude, nil, "", nil, []string{"claude"}, false},
		{"known id resumes", claude, nil, "0f3c-1", nil, []string{"claude", "--resume", "0f3c-1"}, true},
		{"override replaces command", claude, []string{"my-claude", "--fast"}, "", nil, []string{"my-claude", "--fast"}, false},
		{"placeholder inside an argument, twice", embedded, nil, "s9", nil, []string{"agent", "--session=s9", "--id", "s9"}, true},
		{"no resume_args never resumes", shell, nil, "s9", map[string]string{"SHELL": "/bin/zsh"}, []string{"/bin/zsh"}, false},
		{"shell default when SHELL unset", shell, nil, "", map[string]string{}, []string{"/bin/sh"}, false},
		{"shell default when SHELL empty", shell, nil, "", map[string]string{"SHELL": ""}, []string{"/bin/sh"}, false},
		{"shell default with nil env", shell, nil, "", nil, []string{"/bin/sh"}, false},
		{"profile command expands $VAR and ${VAR}", Profile{Command: []string{"$HOME/bin/agent", "--dir=${PROJ}", "${UNSET}x", "${EDITOR:-vi}"}}, nil, "",
			map[string]string{"HOME": "/h", "PROJ": "/p", "EDITOR": "nano"}, []string{"/h/bin/agent", "--dir=/p", "x", "nano"}, false},
		{"default when unset", Profile{Command: []string{"${AGENT:-claude}", "${MODE:-fast mode}"}}, nil, "", map[string]string{}, []string{"claude", "fast mode"}, false},
		{"an override is literal", claude, []string{"sh", "-c", "echo $HOME $$ ${X:-y}"}, "", map[string]string{"HOME": "/h"},
			[]string{"sh", "-c", "echo $HOME $$ ${X:-y}"}, false},
		{"an id not of the format never becomes argv ($HOME)", claude, nil, "$HOME", map[string]string{"HOME": "/h"}, []string{"claude"}, false},
		{"an id that is a flag", claude, nil, "--dangerously-skip-permissions", nil, []string{"claude"}, false},
		{"an id that is a path", claude, nil, "/etc/passwd", nil, []string{"claude"}, false},
		{"an id of 10 KB", claude, nil, strings.Repeat("a", 10<<10), nil, []string{"claude"}, false},
		{"a UUID under the UUID pattern", uuidClaude, nil, "0b7e5a4c-9f0e-4a51-8d2b-2c1e0f6a7b3d", nil,
			[]string{"claude", "--resume", "0b7e5a4c-9f0e-4a51-8d2b-2c1e0f6a7b3d"}, true},
		{"a token under the UUID pattern", uuidClaude, nil, "conv-1", nil, []string{"claude"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			argv, resumed := tt.profile.Argv(tt.override, tt.id, tt.env)
			if !reflect.DeepEqual(argv, tt.want) || resumed != tt.wantResumed {
				t.Errorf("Argv = %q, %v; want %q, %v", argv, resumed, tt.want, tt.wantResumed)
			}
		})
	}
	// Argv must not modify the profile's own slices.
	claude.Argv([]string{"x"}, "id", nil)
	if !reflect.DeepEqual(claude.Command, []string{"claude"}) || !reflect.DeepEqual(claude.ResumeArgs, []string{"--resume", AgentSessionPlaceholder}) {
		t.Errorf("Argv modified the profile: %+v", claude)
	}
}
