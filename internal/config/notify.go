package config

import (
	"errors"
	"fmt"
	"time"
)

// Notify is the `notify:` section of config.yaml, the configuration of
// supervisor/notify. Every key is optional; DefaultNotify has the defaults.
type Notify struct {
	// After: notify once the session has waited this long (15s).
	After time.Duration `yaml:"after"`
	// Repeat: remind every Repeat while the episode lasts; 0 (the
	// default) notifies once per episode.
	Repeat time.Duration `yaml:"repeat"`
	// Tmux: display-message on every attached client of the session's
	// tmux server (default true).
	Tmux bool `yaml:"tmux"`
	// Desktop: notify-send when it exists, else an OSC 777 notification
	// through tmux's passthrough (default false).
	Desktop bool `yaml:"desktop"`
	// Command is run (never through a shell) with SUP_* variables that
	// describe the wait; empty: none.
	Command []string `yaml:"command"`
	// CommandTimeout bounds Command's run (10s).
	CommandTimeout time.Duration `yaml:"command_timeout"`
}

// DefaultNotify is the configuration without a `notify:` section: the
// tmux message after 15 s, nothing else.
func DefaultNotify() Notify {
	return Notify{After: 15 * time.Second, Tmux: true, CommandTimeout: 10 * time.Second}
}

// Validate names the first bad key and what would be valid.
func (c Notify) Validate() error {
	switch {
	case c.After <= 0:
		return fmt.Errorf("after %s: must be a positive duration such as 15s", c.After)
	case c.Repeat < 0:
		return fmt.Errorf("repeat %s: must be a positive duration such as 5m, or 0 for no reminders", c.Repeat)
	case c.Repeat > 0 && c.Repeat < time.Second:
		return fmt.Errorf("repeat %s: at least 1s (a reminder storm helps nobody)", c.Repeat)
	case c.CommandTimeout <= 0:
		return fmt.Errorf("command_timeout %s: must be a positive duration such as 10s", c.CommandTimeout)
	case len(c.Command) > 0 && c.Command[0] == "":
		return errors.New("command: the first element is the program to run; it is empty")
	}
	return nil
}

// Enabled reports whether any way to notify is on.
func (c Notify) Enabled() bool { return c.Tmux || c.Desktop || len(c.Command) > 0 }
