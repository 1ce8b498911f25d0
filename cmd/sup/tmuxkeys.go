//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/sup-tmux/sup/cmd/sup/internal/doctor"
	"github.com/sup-tmux/sup/cmd/sup/internal/tmuxkeys"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/urfave/cli/v3"
)

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
			snippet := tmuxkeys.Snippet(selfPath())
			if !cmd.Bool("install") {
				fmt.Print(snippet)
				return nil
			}
			in, err := tmuxkeys.Install(snippet, paths.ConfigDir(os.Getenv), os.UserHomeDir)
			if err != nil {
				return err
			}
			if in.Added == "" {
				outf("wrote %s; %s already sources it\n", in.Keys, in.Conf)
				return nil
			}
			outf("wrote %s and added to %s:\n  %s\nreload with: tmux source-file %s\n", in.Keys, in.Conf, in.Added, in.Conf)
			return nil
		},
	}
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
