//go:build linux

package main

import (
	"context"
	"os"

	"github.com/sup-tmux/sup/cmd/sup/internal/doctor"
	"github.com/urfave/cli/v3"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the installation and say what to fix (exit 1 on a problem)",
		Description: "Checks the runtime dir and sockets (stale ones too), queue files, tmux (version,\n" +
			"focus-events, the queue's key bindings), each agent CLI on PATH against the versions sup\n" +
			"was tested with and whether its hooks are installed, config and profile files, and the\n" +
			"disk the session logs and the audit take. --fix does only the safe repairs: it removes\n" +
			"stale sockets and queue files and prunes ended sessions' logs past the limits.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fix", Usage: "remove stale sockets and queue files, prune ended sessions' logs"},
			jsonFlag,
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			cwd, _ := os.Getwd()       // Best effort: without it only the user's hook settings are checked.
			self, _ := os.Executable() // Best effort: "" skips the PATH check.
			fs := doctor.Run(ctx, doctor.Options{Getenv: os.Getenv, ProjectDir: cwd, Fix: cmd.Bool("fix"), Limits: configuredLimits(),
				Executable: self})
			if cmd.Bool("json") {
				if err := printJSON(os.Stdout, fs); err != nil {
					return err
				}
			} else {
				doctor.Print(os.Stdout, fs)
			}
			if doctor.HasProblem(fs) {
				return exitError{1}
			}
			return nil
		},
	}
}
