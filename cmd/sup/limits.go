//go:build linux

package main

import (
	"os"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// configuredLimits are the disk limits of config.yaml (log:, audit:) for
// the verbs that write or measure the state dir without starting a
// session. A config that fails to load leaves the defaults: `sup doctor`
// reports the error itself, and `sup start` refuses it.
func configuredLimits() store.Limits {
	cfg, err := plan.LoadConfig(paths.ConfigDir(os.Getenv))
	if err != nil {
		return store.Limits{} // Best effort: the defaults.
	}
	return cfg.Limits
}

// configuredMaxPrompt is trigger.max_prompt_bytes from config.yaml (the
// default when it cannot be read): the limit a session sup route may
// start would apply (checkBeforeStart), so that no session is started for
// a prompt it refuses.
func configuredMaxPrompt() int {
	cfg, err := plan.LoadConfig(paths.ConfigDir(os.Getenv))
	if err != nil {
		return trigger.Config{}.WithDefaults().MaxPromptBytes // Best effort: the default.
	}
	return cfg.Trigger.WithDefaults().MaxPromptBytes
}
