//go:build linux

package main

import (
	"context"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/pick"
)

func pickCommand() *cli.Command {
	return &cli.Command{
		Name:  "pick",
		Usage: "choose a waiting session from the queue, with a live preview (for tmux display-popup -E)",
		Flags: []cli.Flag{clientFlag, displayFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			f, ferr := fleet()
			chosen, err := pick.Run(ctx, f, ferr)
			if err != nil || chosen == nil {
				return err
			}
			return jumpTo(reporter{ctx, cmd, broker.CallerTmux(os.Getenv), f}, *chosen)
		},
	}
}
