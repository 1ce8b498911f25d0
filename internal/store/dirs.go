package store

import "github.com/sup-tmux/sup/internal/paths"

// ConfigDir is $XDG_CONFIG_HOME/sup (default ~/.config/sup): it is
// internal/paths.ConfigDir, which owns the layout.
func ConfigDir(getenv func(string) string) string { return paths.ConfigDir(getenv) }

// StateDir is $XDG_STATE_HOME/sup (default ~/.local/state/sup): session
// logs, the registry and the audit trail. It is internal/paths.StateDir.
func StateDir(getenv func(string) string) string { return paths.StateDir(getenv) }
