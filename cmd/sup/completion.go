//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/urfave/cli/v3"
)

// completionTimeout bounds the live-session lookup behind a TAB: a wedged
// supervisor must not freeze the shell.
const completionTimeout = 300 * time.Millisecond

// enableCompletion turns on urfave/cli's shell completion (`sup completion
// bash|zsh|fish` prints the script; the script calls sup with
// --generate-shell-completion) and teaches every verb that takes a TARGET
// to offer the live sessions, and every --profile flag the profile names.
func enableCompletion(app *cli.Command) {
	app.EnableShellCompletion = true
	app.ConfigureShellCompletionCommand = func(c *cli.Command) {
		c.Hidden = false
		c.Usage = "print the shell completion script: bash, zsh, fish (or pwsh); see the README"
		c.Action = func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() == 0 {
				return errors.New("completion: which shell? bash, zsh, fish or pwsh (e.g. source <(sup completion bash))")
			}
			return fmt.Errorf("completion: unknown shell %q: choose bash, zsh, fish or pwsh", cmd.Args().First())
		}
	}
	for _, c := range app.Commands {
		takesTarget := strings.HasPrefix(c.ArgsUsage, "TARGET") || strings.HasPrefix(c.ArgsUsage, "[TARGET]")
		hasProfile := false
		for _, f := range c.Flags {
			if f.Names()[0] == "profile" {
				hasProfile = true
			}
		}
		if takesTarget || hasProfile {
			c.ShellComplete = completeArgs(takesTarget, hasProfile)
		}
	}
}

// completeArgs prints candidates for the word being completed: a flag
// (the default), a --profile value, or the TARGET when it is the first
// argument.
func completeArgs(takesTarget, hasProfile bool) cli.ShellCompleteFunc {
	return func(ctx context.Context, cmd *cli.Command) {
		args := completionArgs()
		last := ""
		if len(args) > 0 {
			last = args[len(args)-1]
		}
		switch {
		case hasProfile && (last == "--profile" || last == "-profile"):
			for _, n := range plan.ProfileNames(paths.ConfigDir(os.Getenv)) {
				fmt.Fprintln(cmd.Root().Writer, n)
			}
		case strings.HasPrefix(last, "-"):
			cli.DefaultCompleteWithFlags(ctx, cmd)
		case takesTarget && cmd.Args().Len() == 0:
			printTargets(ctx, cmd)
		}
	}
}

// completionArgs is the command line before the word being completed,
// without the program and the completion marker.
func completionArgs() []string {
	var args []string
	for _, a := range os.Args[1:] {
		if a != "--generate-shell-completion" {
			args = append(args, a)
		}
	}
	return args
}

// printTargets prints each live session's name (described by its
// workspace/role and activity) and, where names repeat, its id.
func printTargets(ctx context.Context, cmd *cli.Command) {
	dir, err := runtimeDir()
	if err != nil {
		return // no candidates: the shell falls back to its default
	}
	res, err := broker.List(ctx, dir, completionTimeout)
	if err != nil {
		return // no candidates: the shell falls back to its default
	}
	count := map[string]int{}
	for _, s := range res.Sessions {
		count[s.State.Name]++
	}
	w := cmd.Root().Writer
	for _, s := range res.Sessions {
		st := s.State
		desc := strings.Trim(st.Workspace+"/"+st.Role, "/")
		desc = strings.TrimSpace(desc + " " + st.Activity)
		if count[st.Name] == 1 && !strings.ContainsAny(st.Name, ": \t\n") {
			fprintf(w, "%s:%s\n", st.Name, desc) // the shell draws them: fields
		}
		fprintf(w, "%s:%s %s\n", st.SessionID, st.Name, desc)
	}
}
