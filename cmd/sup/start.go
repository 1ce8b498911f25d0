//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/supervisor"
	"github.com/urfave/cli/v3"
)

func startCommand(command []string) *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "run the agent for DOC behind a pty, restart it when it crashes, serve its control socket",
		ArgsUsage: "DOC [-- COMMAND [ARGS...]]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cwd", Usage: "the agent's working directory (relative to here)"},
			&cli.StringFlag{Name: "profile", Usage: "agent profile: claude, codex, gemini, shell or a user profile"},
			&cli.StringFlag{Name: "name", Usage: "session name (default: DOC's base name without extension)"},
			&cli.StringFlag{Name: "workspace", Usage: "workspace label"},
			&cli.StringFlag{Name: "role", Usage: "role label"},
			&cli.StringFlag{Name: "resume-id", Usage: "resume this agent conversation (its exact id) at the first start"},
			&cli.BoolFlag{Name: "duplicate", Usage: "start even when another supervisor runs for DOC (two sessions share its name and registry entry)"},
			&cli.BoolFlag{Name: "print-env", Usage: "print the resolved cwd, command and environment with their sources, then exit"},
			&cli.StringFlag{Name: "size", Value: "80x24", Usage: "pty size COLSxROWS when stdin is not a terminal"},
			// sup route's: where a start that fails says why, so the
			// route reports the real cause at once (specs/broker.md).
			&cli.StringFlag{Name: "start-report", Hidden: true},
			// sup route's: the names of the caller's variables it passed
			// to this window (-e); only those (and the terminal's own) are
			// the environment, never the tmux server's (specs/broker.md).
			&cli.StringSliceFlag{Name: "caller-env", Hidden: true},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			switch {
			case len(args) == 0:
				return usagef("start: missing DOC (usage: sup start [flags] DOC [-- COMMAND [ARGS...]])")
			case len(args) > 1:
				return usagef("start: unexpected argument %q after DOC: put the agent's command after --", args[1])
			}
			size, err := parseSize(cmd.String("size"))
			if err != nil {
				return err
			}
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("start: current directory: %w", err)
			}
			environ := os.Environ()
			if cmd.IsSet("caller-env") {
				environ = plan.OnlyNames(environ, cmd.StringSlice("caller-env"))
			}
			opts := plan.Options{
				Document:      args[0],
				CWD:           cmd.String("cwd"),
				Profile:       cmd.String("profile"),
				Name:          cmd.String("name"),
				Workspace:     cmd.String("workspace"),
				Role:          cmd.String("role"),
				ResumeID:      cmd.String("resume-id"),
				Command:       command,
				InvocationDir: wd,
				Environ:       environ,
			}
			report := cmd.String("start-report")
			code, err := supervisor.Start(ctx, opts, supervisor.StartIO{
				In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Size: size, PrintEnv: cmd.Bool("print-env"),
				Duplicate: cmd.Bool("duplicate"),
			})
			if err != nil {
				if report != "" {
					// Best effort: the error is printed to the pane too.
					_ = os.WriteFile(report, []byte(err.Error()+"\n"), 0o600)
				}
				return fmt.Errorf("start: %w", err)
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}

// parseSize parses COLSxROWS.
func parseSize(s string) (pty.Winsize, error) {
	c, r, ok := strings.Cut(strings.ToLower(s), "x")
	cols, err1 := strconv.ParseUint(c, 10, 16)
	rows, err2 := strconv.ParseUint(r, 10, 16)
	if !ok || err1 != nil || err2 != nil || cols == 0 || rows == 0 {
		return pty.Winsize{}, fmt.Errorf("--size %q: want COLSxROWS with both between 1 and 65535, e.g. 120x40", s)
	}
	return pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}, nil
}
