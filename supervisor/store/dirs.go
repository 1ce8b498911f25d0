//go:build linux

package store

import "path/filepath"

// ConfigDir is $XDG_CONFIG_HOME/sup (default ~/.config/sup).
func ConfigDir(getenv func(string) string) string {
	return xdgDir(getenv, "XDG_CONFIG_HOME", ".config")
}

// StateDir is $XDG_STATE_HOME/sup (default ~/.local/state/sup): session logs
// and the audit trail.
func StateDir(getenv func(string) string) string {
	return xdgDir(getenv, "XDG_STATE_HOME", filepath.Join(".local", "state"))
}

func xdgDir(getenv func(string) string, variable, homeRel string) string {
	if d := getenv(variable); filepath.IsAbs(d) {
		return filepath.Join(d, "sup")
	}
	home := getenv("HOME")
	if home == "" {
		home = "/"
	}
	return filepath.Join(home, homeRel, "sup")
}
