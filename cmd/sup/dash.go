//go:build linux

package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/cmd/sup/internal/dash"
)

func dashCommand() *cli.Command {
	return &cli.Command{
		Name:  "dash",
		Usage: "a full-screen live dashboard of every session (updated from their events); Enter jumps, t triggers, r restarts, s skips, ? help",
		Flags: []cli.Flag{clientFlag, hostFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			f, err := fleet() // a bad config or --host is told before the terminal check
			if err != nil {
				return err
			}
			fo, local, err := f.Select(hostName(cmd))
			if err != nil {
				return err
			}
			return dash.Run(ctx, f, fo, local, cmd.String("client"))
		},
	}
}
