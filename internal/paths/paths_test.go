package paths

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestRuntimeDir(t *testing.T) {
	euid := os.Geteuid()
	cases := []struct {
		getenv func(string) string
		want   string
	}{
		{env("SUP_RUNTIME_DIR", "/x/y/", "XDG_RUNTIME_DIR", "/run/user/1"), "/x/y"},
		{env("XDG_RUNTIME_DIR", "/run/user/1", "TMPDIR", "/var/tmp"), "/run/user/1/sup"},
		{env("XDG_RUNTIME_DIR", "relative/dir", "TMPDIR", "/var/tmp"), fmt.Sprintf("/var/tmp/sup-%d", euid)},
		{env("TMPDIR", "/var/tmp"), fmt.Sprintf("/var/tmp/sup-%d", euid)},
		{env(), fmt.Sprintf("/tmp/sup-%d", euid)},
	}
	for i, tc := range cases {
		if got := RuntimeDir(tc.getenv); got != tc.want {
			t.Errorf("case %d: %q, want %q", i, got, tc.want)
		}
	}
}

func TestConfigAndStateDir(t *testing.T) {
	tests := []struct {
		name              string
		getenv            func(string) string
		wantConfig, wantS string
	}{
		{"XDG set", env("XDG_CONFIG_HOME", "/xdg/config", "XDG_STATE_HOME", "/xdg/state", "HOME", "/home/u"), "/xdg/config/sup", "/xdg/state/sup"},
		{"XDG unset", env("HOME", "/home/u"), "/home/u/.config/sup", "/home/u/.local/state/sup"},
		{"XDG relative is ignored", env("XDG_CONFIG_HOME", "rel/config", "XDG_STATE_HOME", "rel", "HOME", "/home/u"), "/home/u/.config/sup", "/home/u/.local/state/sup"},
		{"no HOME", env(), "/.config/sup", "/.local/state/sup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ConfigDir(tt.getenv); got != tt.wantConfig {
				t.Errorf("ConfigDir = %q, want %q", got, tt.wantConfig)
			}
			if got := StateDir(tt.getenv); got != tt.wantS {
				t.Errorf("StateDir = %q, want %q", got, tt.wantS)
			}
		})
	}
}

func TestSocket(t *testing.T) {
	p, err := Socket("/run/user/1000/sup", "abc123")
	if err != nil || p != "/run/user/1000/sup/abc123.sock" || SocketLock(p) != p+".lock" {
		t.Fatalf("%q %v", p, err)
	}
	for _, id := range []string{"", ".", "..", "a/b", "a\x00b"} {
		if _, err := Socket("/tmp", id); err == nil || !strings.Contains(err.Error(), "session id") {
			t.Errorf("session id %q: error %v, want one naming the session id", id, err)
		}
	}
	dir := "/tmp/" + strings.Repeat("d", MaxSocketPath-len("/tmp/")-len("/s.sock"))
	if p, err := Socket(dir, "s"); err != nil || len(p) != MaxSocketPath {
		t.Fatalf("%d-byte path: %v", len(p), err)
	}
	_, err = Socket(dir, "ss")
	if want := fmt.Sprintf("%d bytes", MaxSocketPath+1); err == nil || !strings.Contains(err.Error(), want) ||
		!strings.Contains(err.Error(), "SUP_RUNTIME_DIR") {
		t.Fatalf("a path one byte too long: %v, want one saying %q and naming SUP_RUNTIME_DIR", err, want)
	}
}

// Every per-session name uses the id Socket accepted, under the dir it
// belongs to; a reader and a writer that call the same function agree.
func TestNames(t *testing.T) {
	for got, want := range map[string]string{
		QueueFile("/r", "id"):             "/r/queue/id.json",
		HostCache("/r", "box"):            "/r/hosts/box.json",
		HostCacheRefresh("/r"):            "/r/hosts/.refresh",
		SSHControlDir("/r"):               "/r/ssh",
		ModelBudget("/r"):                 "/r/model-budget",
		RouteReport("/r", 7, 9):           "/r/route-7-9.err",
		Registry("/s"):                    "/s/sessions.json",
		RegistryLock("/s"):                "/s/sessions.json.lock",
		Audit("/s"):                       "/s/audit.jsonl",
		SessionLog("/s", "id"):            "/s/id.log",
		HeadlessLog("/s", 5):              "/s/headless-5.log",
		DemoDir("/s"):                     "/s/demo",
		ConfigFile("/c"):                  "/c/config.yaml",
		Profile("/c", "claude"):           "/c/profiles/claude.yaml",
		TmuxKeys("/c"):                    "/c/tmux.conf",
		DocLock("/r", "/home/u/a.md")[:8]: "/r/docs/",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
	if a, b := DocLock("/r", "/a.md"), DocLock("/r", "/b.md"); a == b || a != DocLock("/r", "/a.md") {
		t.Errorf("doc locks %q %q: want one stable name per document", a, b)
	}
}

func TestLogSession(t *testing.T) {
	for name, want := range map[string]string{
		"abc.log": "abc", "abc.log.1": "abc", ".abc.log": "", ".log": "", "abc.log.2": "",
		"audit.jsonl": "", "sessions.json": "",
	} {
		id, ok := LogSession(name)
		if ok != (want != "") || id != want && ok {
			t.Errorf("LogSession(%q) = %q %v, want %q", name, id, ok, want)
		}
	}
}

func TestAuditRotated(t *testing.T) {
	for n := 0; n < 3; n++ {
		name := AuditRotated("20260102T030405", n)
		stamp, got, ok := ParseAuditRotated(name)
		if !ok || stamp != "20260102T030405" || got != n {
			t.Errorf("%s parsed as %q %d %v", name, stamp, got, ok)
		}
	}
	for _, name := range []string{AuditFile, AuditLock, "audit-2026Z.jsonl", ".audit-20260102T030405Z.jsonl.x.tmp"} {
		if _, _, ok := ParseAuditRotated(name); ok {
			t.Errorf("%s taken for a rotated audit file", name)
		}
	}
}
