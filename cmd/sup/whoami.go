//go:build linux

package main

import (
	"context"
	"os"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/urfave/cli/v3"
)

func whoamiCommand() *cli.Command {
	return &cli.Command{
		Name:  "whoami",
		Usage: "say who supervisors take this shell's calls to be: the operator, or an agent",
		Description: "A supervisor decides who calls it from the kernel (the caller's pid and its ancestry),\n" +
			"not from what the client says: a process inside a supervised agent's tree (its tool\n" +
			"calls, background jobs, daemons it started) is that agent, and may not answer prompts,\n" +
			"inject keys or force triggers (specs/security.md, \"Who is calling\"). This prints the\n" +
			"verdict for this process and the chain of processes that decided it.",
		Flags: []cli.Flag{jsonFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			dir, err := runtimeDir()
			if err != nil {
				return err
			}
			c, err := caller.Self(dir)
			if err != nil {
				return err
			}
			if cmd.Bool("json") {
				return printJSON(os.Stdout, c)
			}
			if c.IsOperator() {
				outln("operator")
			} else {
				outln(c.Label())
				for _, s := range c.Enclosing[1:] {
					outf("inside: %s (workspace %s, supervisor pid %d)\n", s.Name, s.Workspace, s.SupPID)
				}
			}
			outf("chain: %s\n", c.Chain)
			return nil
		},
	}
}
