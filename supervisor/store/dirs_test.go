//go:build linux

package store

import "testing"

func TestConfigDirs(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
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
