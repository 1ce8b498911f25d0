//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sup-tmux/sup/cmd/sup/internal/doctor"
	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/supervisor/store"
	"github.com/urfave/cli/v3"
)

// tmuxSnippet is the tmux configuration that binds the queue's keys. sup
// is the absolute path of this binary, so run-shell's PATH never matters;
// run-shell expands #{client_name}, so the client that pressed the key is
// the one that moves.
func tmuxSnippet(sup string) string {
	q := shellquote.Quote(sup)
	return fmt.Sprintf(`# sup: the stuck queue's keys (written by sup tmux-keys; see specs/broker.md)
# prefix+Tab: jump to the session that has waited on you longest
bind-key Tab run-shell -b "%[1]s next --client '#{client_name}' --display"
# prefix+g: pick from the queue in a popup, with a live preview
bind-key g run-shell -b "tmux display-popup -c '#{client_name}' -w 90%% -h 80%% -E \"%[1]s pick --client '#{client_name}'\""
# prefix+S: skip the head for a while and jump to the next one
bind-key S run-shell -b "%[1]s skip --client '#{client_name}' --display"
# The status segment is yours to place, e.g.:
#   set-option -g status-right '#(%[1]s status-line) %%H:%%M'
#   set-option -g status-interval 5
`, q)
}

// selfPath is this binary's absolute path as it was invoked (a symlink
// stays a symlink), for commands tmux runs later with another PATH.
func selfPath() string {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "sup" // Best effort: PATH then decides.
}

func tmuxKeysCommand() *cli.Command {
	return &cli.Command{
		Name:  "tmux-keys",
		Usage: "print tmux key bindings for the queue (prefix+Tab next, prefix+g pick, prefix+S skip)",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "install", Usage: "write them to $XDG_CONFIG_HOME/sup/tmux.conf and source that from ~/.tmux.conf"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			snippet := tmuxSnippet(selfPath())
			if !cmd.Bool("install") {
				fmt.Print(snippet)
				return nil
			}
			return installTmuxKeys(snippet)
		},
	}
}

// installTmuxKeys writes the snippet to its own file and adds one
// source-file line to ~/.tmux.conf unless it is there already, so running
// it twice changes nothing and the user's own file is appended to, never
// rewritten.
func installTmuxKeys(snippet string) error {
	dir := store.ConfigDir(os.Getenv)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tmux-keys: %w", err)
	}
	keys := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(keys, []byte(snippet), 0o644); err != nil {
		return fmt.Errorf("tmux-keys: write %s: %w", keys, err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return fmt.Errorf("tmux-keys: find ~/.tmux.conf: %w", err)
	}
	conf := filepath.Join(home, ".tmux.conf")
	line := "source-file " + shellquote.Quote(keys)
	old, err := os.ReadFile(conf)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("tmux-keys: read %s: %w", conf, err)
	}
	for _, l := range bytes.Split(old, []byte("\n")) {
		if strings.TrimSpace(string(l)) == line {
			fmt.Printf("wrote %s; %s already sources it\n", keys, conf)
			return nil
		}
	}
	f, err := os.OpenFile(conf, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("tmux-keys: %w", err)
	}
	add := line + "\n"
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		add = "\n" + add
	}
	if _, err := f.WriteString(add); err != nil {
		f.Close()
		return fmt.Errorf("tmux-keys: append to %s: %w", conf, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("tmux-keys: append to %s: %w", conf, err)
	}
	fmt.Printf("wrote %s and added to %s:\n  %s\nreload with: tmux source-file %s\n", keys, conf, line, conf)
	return nil
}

// shellName is how to call this sup in a line printed for the user to
// type: "sup" when that finds this very binary on PATH, else its absolute
// path (quoted for a shell), so the line works as printed.
func shellName() string {
	self := selfPath()
	if p, err := exec.LookPath("sup"); err == nil {
		a, errA := filepath.EvalSymlinks(p)
		b, errB := filepath.EvalSymlinks(self)
		if errA == nil && errB == nil {
			if fa, err := os.Stat(a); err == nil {
				if fb, err := os.Stat(b); err == nil && os.SameFile(fa, fb) {
					return "sup"
				}
			}
		}
	}
	return shellquote.Quote(self)
}

// pathNote is a line telling that sup is not on PATH and how to put it
// there; "" when `sup` finds this binary.
func pathNote() string {
	if shellName() == "sup" {
		return ""
	}
	return fmt.Sprintf("Note: sup is not on your PATH (it is %s); to type plain `sup`: %s\n",
		selfPath(), doctor.PathFix(filepath.Dir(selfPath())))
}
