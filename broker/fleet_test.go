//go:build linux

package broker

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/ipc"
)

// fleetEnv is an environment whose config.yaml is yaml and whose runtime
// dir is a fresh 0700 directory.
func fleetEnv(t *testing.T, yaml string) func(string) string {
	t.Helper()
	home := t.TempDir()
	if yaml != "" {
		dir := filepath.Join(home, "config", "sup")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := filepath.Join(home, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"SUP_RUNTIME_DIR": run, "SUP_SSH_CONFIG": "/etc/test_ssh_config"}
	return func(k string) string { return env[k] }
}

// NewFleet reads hosts: once, refuses this host's own name and takes the
// ssh config from the environment.
func TestNewFleet(t *testing.T) {
	env := fleetEnv(t, "hosts:\n  - name: gpu\n    ssh: me@gpu\n")
	f, err := NewFleet(env)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Host{{Name: "gpu", SSH: "me@gpu", Sup: f.Hosts[0].Sup}}; !reflect.DeepEqual(f.Hosts, want) {
		t.Errorf("hosts %+v, want %+v", f.Hosts, want)
	}
	if f.RuntimeDir != env("SUP_RUNTIME_DIR") || f.SSH.ControlDir != ControlDirOf(f.RuntimeDir) ||
		!reflect.DeepEqual(f.SSH.Options, []string{"-F", "/etc/test_ssh_config"}) {
		t.Errorf("fleet %+v: wrong runtime dir or ssh", f)
	}
	if _, ok := f.Host("gpu"); !ok {
		t.Error("Host(gpu) not found")
	}
	if _, ok := f.Host("vm"); ok {
		t.Error("Host(vm) found")
	}

	_, err = NewFleet(fleetEnv(t, "hosts:\n  - name: "+LocalHostName()+"\n    ssh: x\n"))
	if err == nil || !strings.Contains(err.Error(), "this host's own name") {
		t.Errorf("own name: err %v", err)
	}

	bad := fleetEnv(t, "")
	run := bad("SUP_RUNTIME_DIR")
	if err := os.Remove(run); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), run); err != nil {
		t.Fatal(err)
	}
	if _, err := NewFleet(bad); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("a symlinked runtime dir: err %v", err)
	}
}

// FindIn takes host:TARGET apart only for a known host (or this one): a
// name with a colon that names no host is a target of every host.
func TestFleetFindIn(t *testing.T) {
	f := &Fleet{Hosts: []Host{{Name: "gpu"}}}
	sess := func(host, id, name string) Listing {
		return Listing{Host: host, Socket: "/s/" + id, State: ipc.State{SessionID: id, Name: name}}
	}
	sessions := []Listing{sess("", "aaaa1", "api"), sess("gpu", "bbbb2", "api"), sess("gpu", "cccc3", "x:y")}
	for _, tt := range []struct {
		target, wantID string
	}{
		{"gpu:api", "bbbb2"},
		{LocalHostName() + ":api", "aaaa1"},
		{"x:y", "cccc3"},
		{"gpu:cccc", "cccc3"},
	} {
		s, err := f.FindIn(sessions, tt.target, "")
		if err != nil || s.State.SessionID != tt.wantID {
			t.Errorf("FindIn(%q) = %s, %v; want %s", tt.target, s.State.SessionID, err, tt.wantID)
		}
	}
	if _, err := f.FindIn(sessions, "api", ""); err == nil {
		t.Error("FindIn(api): two sessions named api, want an ambiguity error")
	}
	if _, err := f.FindIn(sessions, "gpu:aaaa", ""); err == nil {
		t.Error("FindIn(gpu:aaaa) found the local session")
	}
}

func TestOriginRequester(t *testing.T) {
	if got, want := OriginRequester("cli:me"), "cli:me@"+LocalHostName(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := OriginRequester("cli:me@far"); got != "cli:me@far" {
		t.Errorf("a named origin changed: %q", got)
	}
}
