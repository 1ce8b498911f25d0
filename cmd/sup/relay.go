//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/urfave/cli/v3"
)

func relayCommand() *cli.Command {
	return &cli.Command{
		Name:  "relay",
		Usage: "serve this host's supervisors to a broker on another host, over stdio (run by ssh; specs/broker.md)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "join stdio to this session's socket, byte for byte, instead"},
			&cli.DurationFlag{Name: "idle", Value: 10 * time.Minute, Usage: "exit after this long without a request"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			if d := cmd.Duration("idle"); d <= 0 {
				return fmt.Errorf("relay: --idle %s: must be a positive duration such as 10m", d)
			}
			dir, err := runtimeDir()
			if err != nil {
				return err
			}
			if id := cmd.String("session"); id != "" {
				return broker.RelayConnect(os.Stdin, os.Stdout, dir, id)
			}
			return broker.ServeRelay(ctx, os.Stdin, os.Stdout, broker.RelayConfig{
				RuntimeDir: dir, Version: versionString(), Idle: cmd.Duration("idle")})
		},
	}
}
