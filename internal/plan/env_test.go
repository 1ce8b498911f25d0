//go:build linux

package plan

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func unitEnvMap(vars []EnvVar) map[string]EnvVar {
	m := map[string]EnvVar{}
	for _, v := range vars {
		m[v.Name] = v
	}
	return m
}

func unitSupVars() map[string]string {
	return map[string]string{
		"SUP_SESSION":  "abc123",
		"SUP_DOCUMENT": "/docs/plan.md",
		"SUP_NAME":     "plan",
		"SUP_SOCKET":   "/run/sup/abc123.sock",
		"PWD":          "/work/proj",
	}
}

func TestUnitEnvAllowList(t *testing.T) {
	allowed := []string{
		"HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/zsh", "PATH=/usr/bin:/bin",
		"TERM=xterm-256color", "COLORTERM=truecolor", "LANG=en_US.UTF-8",
		"LC_ALL=C", "LC_CTYPE=UTF-8", "TZ=UTC", "TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%1",
		"SSH_AUTH_SOCK=/tmp/ssh/agent", "XDG_CONFIG_HOME=/home/u/.config", "XDG_RUNTIME_DIR=/run/user/0",
		"http_proxy=http://p:3128", "https_proxy=http://p:3128", "no_proxy=localhost",
		"HTTP_PROXY=http://p:3128", "HTTPS_PROXY=http://p:3128", "NO_PROXY=localhost",
		"ANTHROPIC_API_KEY=sk-ant-x", "CLAUDE_CONFIG_DIR=/c", "OPENAI_API_KEY=sk-o", "CODEX_HOME=/cx",
		"GEMINI_API_KEY=g", "GOOGLE_CLOUD_PROJECT=p",
	}
	denied := []string{
		"AWS_SECRET_ACCESS_KEY=aws", "AWS_ACCESS_KEY_ID=id", "MY_VAR=mine", "GITHUB_TOKEN=ghp",
		"EDITOR=vim", "OLDPWD=/old", "PWD=/parent/pwd", "SUP_SESSION=parent-session",
		"HOMEBREW_PREFIX=/opt", "LCX=1", "XDG=1", "ANTHROPIC=1", "home=/lower", "path=/lower",
		"TMUX_OTHER=1", "ALL_PROXY=socks5://x",
	}
	vars, err := BuildEnv(EnvInput{Parent: append(append([]string{}, allowed...), denied...)})
	if err != nil {
		t.Fatalf("BuildEnv: %v", err)
	}
	got := unitEnvMap(vars)
	for _, kv := range allowed {
		name, value, _ := strings.Cut(kv, "=")
		v, ok := got[name]
		if !ok {
			t.Errorf("allowed parent variable %s missing", name)
			continue
		}
		if v.Value != value || v.Source != EnvFromParent {
			t.Errorf("%s = %+v, want value %q source %q", name, v, value, EnvFromParent)
		}
	}
	for _, kv := range denied {
		name, _, _ := strings.Cut(kv, "=")
		if v, ok := got[name]; ok {
			t.Errorf("parent variable %s must be absent, got %+v", name, v)
		}
	}
	if len(got) != len(allowed) {
		t.Errorf("got %d variables, want %d: %v", len(got), len(allowed), EnvNames(vars))
	}
}

func TestUnitEnvSourceStrings(t *testing.T) {
	for got, want := range map[string]string{
		EnvFromParent:      "parent",
		EnvFromProfile:     "profile_passthrough",
		EnvFromDocument:    "frontmatter_passthrough",
		EnvFromFrontmatter: "frontmatter_env",
		EnvFromSup:         "sup",
	} {
		if got != want {
			t.Errorf("env source %q, want %q", got, want)
		}
	}
}

func TestUnitEnvPassthrough(t *testing.T) {
	parent := []string{
		"HOME=/home/u", "AWS_PROFILE=dev", "AWS_SECRET_ACCESS_KEY=aws", "MY_VAR=1", "MY_OTHER=2",
		"MYVAR=3", "EDITOR=vim", "KUBECONFIG=/k", "DOCKER_HOST=unix:///d",
	}
	vars, err := BuildEnv(EnvInput{
		Parent:             parent,
		ProfilePassthrough: []string{"AWS_PROFILE", "DOCKER_*", "NOT_SET"},
		DocPassthrough:     []string{"MY_*", "KUBECONFIG", "HOME"},
	})
	if err != nil {
		t.Fatalf("BuildEnv: %v", err)
	}
	got := unitEnvMap(vars)
	want := map[string]EnvVar{
		"HOME":        {"HOME", "/home/u", EnvFromDocument},
		"AWS_PROFILE": {"AWS_PROFILE", "dev", EnvFromProfile},
		"DOCKER_HOST": {"DOCKER_HOST", "unix:///d", EnvFromProfile},
		"MY_VAR":      {"MY_VAR", "1", EnvFromDocument},
		"MY_OTHER":    {"MY_OTHER", "2", EnvFromDocument},
		"KUBECONFIG":  {"KUBECONFIG", "/k", EnvFromDocument},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BuildEnv =\n%v\nwant\n%v", got, want)
	}
}

func TestUnitEnvOverlay(t *testing.T) {
	parent := []string{"HOME=/home/u", "TERM=xterm", "A=from-parent", "SECRET_DIR=/s", "PATH=/bin"}
	overlay := map[string]string{
		"X":       "$HOME/x",
		"Y":       "${HOME}/y",
		"EMPTY":   "$NOT_SET_ANYWHERE",
		"TERM":    "dumb",
		"LIT":     "plain value",
		"B":       "$A",
		"A":       "overlay-a",
		"FROMDEN": "${SECRET_DIR}/z",
		"PATH":    "/opt/bin:$PATH",
	}
	order := []string{"X", "Y", "EMPTY", "TERM", "LIT", "A", "B", "FROMDEN", "PATH"}
	vars, err := BuildEnv(EnvInput{Parent: parent, Overlay: overlay, OverlayOrder: order})
	if err != nil {
		t.Fatalf("BuildEnv: %v", err)
	}
	got := unitEnvMap(vars)
	want := map[string]string{
		"X":       "/home/u/x",
		"Y":       "/home/u/y",
		"EMPTY":   "",
		"TERM":    "dumb",
		"LIT":     "plain value",
		"A":       "overlay-a",
		"B":       "from-parent", // expansion is against the parent, not the overlay
		"FROMDEN": "/s/z",
		"PATH":    "/opt/bin:/bin",
	}
	for name, value := range want {
		v, ok := got[name]
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		if v.Value != value || v.Source != EnvFromFrontmatter {
			t.Errorf("%s = %+v, want value %q source %q", name, v, value, EnvFromFrontmatter)
		}
	}
	if v := got["HOME"]; v.Source != EnvFromParent || v.Value != "/home/u" {
		t.Errorf("HOME = %+v, want the parent's", v)
	}
	if _, ok := got["SECRET_DIR"]; ok {
		t.Error("SECRET_DIR: expanding it in the overlay must not pass it through")
	}
}

func TestUnitEnvSupVarsWin(t *testing.T) {
	parent := []string{
		"HOME=/home/u", "PWD=/parent/dir", "SUP_SESSION=parent", "SUP_NAME=parent", "SUP_SOCKET=/parent.sock",
		"SUP_DOCUMENT=/parent.md",
	}
	vars, err := BuildEnv(EnvInput{
		Parent:             parent,
		ProfilePassthrough: []string{"SUP_*", "PWD"},
		DocPassthrough:     []string{"SUP_*", "PWD"},
		Sup:                unitSupVars(),
	})
	if err != nil {
		t.Fatalf("BuildEnv: %v", err)
	}
	got := unitEnvMap(vars)
	for name, value := range unitSupVars() {
		v := got[name]
		if v.Value != value || v.Source != EnvFromSup {
			t.Errorf("%s = %+v, want value %q source %q", name, v, value, EnvFromSup)
		}
	}
}

func TestUnitEnvOverlayReserved(t *testing.T) {
	for _, name := range []string{"PWD", "SUP_SESSION", "SUP_DOCUMENT", "SUP_NAME", "SUP_SOCKET", "SUP_X", "SUP_RUNTIME_DIR"} {
		t.Run(name, func(t *testing.T) {
			_, err := BuildEnv(EnvInput{
				Parent:       []string{"HOME=/h"},
				Overlay:      map[string]string{"OK": "1", name: "x"},
				OverlayOrder: []string{"OK", name},
				Sup:          unitSupVars(),
			})
			if err == nil {
				t.Fatalf("overlay of %s: want an error", name)
			}
			if !strings.Contains(err.Error(), "sup.env."+name) {
				t.Errorf("error %q: want it to name sup.env.%s", err, name)
			}
		})
	}
	// Without sup's own variables the overlay is still refused.
	if _, err := BuildEnv(EnvInput{Overlay: map[string]string{"SUP_SESSION": "x"}, OverlayOrder: []string{"SUP_SESSION"}}); err == nil {
		t.Error("overlay of SUP_SESSION without Sup: want an error")
	}
}

func TestUnitEnvSortedAndRendered(t *testing.T) {
	vars, err := BuildEnv(EnvInput{
		Parent:       []string{"TERM=xterm", "HOME=/h", "LC_ALL=C", "PATH=/bin", "XDG_X=1", "NOEQUALS", "=novalue", "LC_EQ=a=b=c", "LANG="},
		Overlay:      map[string]string{"ZZZ": "z", "AAA": "a"},
		OverlayOrder: []string{"ZZZ", "AAA"},
		Sup:          unitSupVars(),
	})
	if err != nil {
		t.Fatalf("BuildEnv: %v", err)
	}
	names := EnvNames(vars)
	if !sort.StringsAreSorted(names) {
		t.Errorf("names not sorted: %v", names)
	}
	wantNames := []string{"AAA", "HOME", "LANG", "LC_ALL", "LC_EQ", "PATH", "PWD", "SUP_DOCUMENT", "SUP_NAME", "SUP_SESSION", "SUP_SOCKET", "TERM", "XDG_X", "ZZZ"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("names = %v, want %v", names, wantNames)
	}
	environ := Environ(vars)
	if len(environ) != len(vars) {
		t.Fatalf("Environ has %d entries, want %d", len(environ), len(vars))
	}
	for i, kv := range environ {
		if want := vars[i].Name + "=" + vars[i].Value; kv != want {
			t.Errorf("Environ[%d] = %q, want %q", i, kv, want)
		}
	}
	got := unitEnvMap(vars)
	if got["LC_EQ"].Value != "a=b=c" {
		t.Errorf("LC_EQ = %q, want a=b=c", got["LC_EQ"].Value)
	}
	if v, ok := got["LANG"]; !ok || v.Value != "" {
		t.Errorf("LANG = %+v, %v; want present and empty", v, ok)
	}
}

func TestUnitEnvDeterministic(t *testing.T) {
	in := EnvInput{
		Parent:             []string{"HOME=/h", "LC_A=1", "LC_B=2", "MY_A=1", "MY_B=2"},
		ProfilePassthrough: []string{"MY_*"},
		DocPassthrough:     []string{"MY_B"},
		Sup:                unitSupVars(),
	}
	first, err := BuildEnv(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		again, err := BuildEnv(in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(first, again) {
			t.Fatalf("BuildEnv not deterministic:\n%v\n%v", first, again)
		}
	}
	if got := unitEnvMap(first)["MY_B"].Source; got != EnvFromDocument {
		t.Errorf("MY_B source = %q, want %q (the document's passthrough is the later layer)", got, EnvFromDocument)
	}
}

func TestUnitEnvMaskedValue(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{"ANTHROPIC_API_KEY", "sk-ant-0123456789", "****(17 chars)"},
		{"OPENAI_API_KEY", "sk-1", "****(4 chars)"},
		{"GITHUB_TOKEN", "ghp_x", "****(5 chars)"},
		{"CLAUDE_CODE_OAUTH_TOKEN", "abc", "****(3 chars)"},
		{"MY_PASSWORD", "hunter2", "****(7 chars)"},
		{"db_secret", "lower", "****(5 chars)"},
		{"GOOGLE_APPLICATION_CREDENTIALS", "/k.json", "****(7 chars)"},
		{"AGENT_SESSION_ID", "s", "****(1 chars)"},
		{"ANTHROPIC_API_KEY", "", ""},
		{"SSH_AUTH_SOCK", "/tmp/ssh-agent.sock", "/tmp/ssh-agent.sock"},
		{"HOME", "/home/u", "/home/u"},
		{"PATH", "/usr/bin", "/usr/bin"},
		{"SUP_SESSION", "abc123", "abc123"},
		{"HTTPS_PROXY", "http://user:pw@proxy:3128", "****(25 chars)"},
		{"https_proxy", "http://user:pw@proxy:3128", "****(25 chars)"},
		{"http_proxy", "http://proxy:3128", "http://proxy:3128"},
		{"NO_PROXY", "localhost,.internal", "localhost,.internal"},
	}
	for _, tt := range tests {
		got := MaskedValue(EnvVar{Name: tt.name, Value: tt.value, Source: EnvFromParent})
		if got != tt.want {
			t.Errorf("MaskedValue(%s=%q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
		if tt.want != tt.value && len(tt.value) > 4 && strings.Contains(got, tt.value) {
			t.Errorf("MaskedValue(%s) leaks the value: %q", tt.name, got)
		}
	}
}

func TestUnitEnvOverlayLiteralDollar(t *testing.T) {
	vars, err := BuildEnv(EnvInput{Parent: []string{"HOME=/h"}, Overlay: map[string]string{"PRICE": "$$5 at $HOME"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vars {
		if v.Name == "PRICE" && v.Value != "$5 at /h" {
			t.Fatalf("PRICE = %q, want %q", v.Value, "$5 at /h")
		}
	}
}

// TestUnitEnvRouteNames: the names a route needs from its caller and
// those it may not do without; the window keeps its terminal's own.
func TestUnitEnvRouteNames(t *testing.T) {
	vars, err := BuildEnv(EnvInput{
		Parent:             []string{"PATH=/bin", "TERM=xterm", "ANTHROPIC_API_KEY=k", "GOPATH=/go", "TOKEN=t", "OTHER=o", "HIDDEN=h"},
		ProfilePassthrough: []string{"GOPATH"},
		DocPassthrough:     []string{"TOK*"},
		Overlay:            map[string]string{"DERIVED": "${HIDDEN}/x$$", "LIKE": "$SUP_SESSION"},
		Sup:                map[string]string{"SUP_SESSION": "s", "PWD": "/w"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(RequiredNames(vars), ","); got != "ANTHROPIC_API_KEY,GOPATH,TOKEN" {
		t.Fatalf("RequiredNames = %s", got)
	}
	p := &Plan{Env: vars, Frontmatter: Frontmatter{Env: map[string]string{"DERIVED": "${HIDDEN}/x$$", "LIKE": "$SUP_SESSION"}, EnvOrder: []string{"DERIVED", "LIKE"}}}
	if got := strings.Join(p.CallerNames(), ","); got != "ANTHROPIC_API_KEY,GOPATH,HIDDEN,PATH,TERM,TOKEN" {
		t.Fatalf("CallerNames = %s", got)
	}
	got := OnlyNames([]string{"PATH=/bin", "TERM=tmux", "TMUX_PANE=%3", "LEFT=over", "ANTHROPIC_OLD=x"}, []string{"PATH"})
	if strings.Join(got, " ") != "PATH=/bin TERM=tmux TMUX_PANE=%3" {
		t.Fatalf("OnlyNames = %q", got)
	}
}
