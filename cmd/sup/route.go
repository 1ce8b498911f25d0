//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
	"github.com/urfave/cli/v3"
)

// routeStartTimeout bounds the wait for a supervisor the route started.
const routeStartTimeout = 30 * time.Second

func routeCommand() *cli.Command {
	return &cli.Command{
		Name: "route",
		Usage: "send a trigger to the session of a workspace/role/name, starting it (resumed, else fresh) " +
			"in tmux window of agents_<workspace> when none runs (exit 2 timeout, 3 failed)",
		ArgsUsage: "TEXT|-",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "workspace", Usage: "the session's workspace"},
			&cli.StringFlag{Name: "role", Usage: "the session's role"},
			&cli.StringFlag{Name: "name", Usage: "the session's name"},
			&cli.StringFlag{Name: "doc", Usage: "the document to start when no session runs and none is recorded"},
			&cli.StringFlag{Name: "host", Usage: "route on this host (a name of hosts: in config.yaml): its own sup route runs there over ssh"},
			&cli.BoolFlag{Name: "tmux-default", Usage: "outside tmux, open a missing session on the default tmux server (else only the server it last ran in)"},
		}, append(triggerFlags(), jsonFlag)...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			switch n := cmd.Args().Len(); {
			case n == 0:
				return usagef("route: missing TEXT (or - to read it from stdin)")
			case n > 1:
				return usagef("route: unexpected argument %q: quote TEXT as one argument", cmd.Args().Get(1))
			}
			if h := cmd.String("host"); h != "" && h != broker.LocalHostName() {
				return routeOnHost(ctx, cmd, h)
			}
			p, err := buildTriggerParams(cmd, cmd.Args().First())
			if err != nil {
				return err
			}
			if err := checkBeforeStart(p); err != nil {
				return err
			}
			doc := cmd.String("doc")
			if doc != "" {
				if doc, err = absExisting(doc); err != nil {
					return fmt.Errorf("route: --doc: %w", err)
				}
			}
			dir, err := runtimeDir()
			if err != nil {
				return err
			}
			r := &broker.Router{
				RuntimeDir: dir, StateDir: paths.StateDir(os.Getenv), ConfigDir: paths.ConfigDir(os.Getenv),
				Sup: selfPath(), TmuxSocket: broker.CallerTmux(os.Getenv), Document: doc, Env: os.Environ(),
				DefaultServer: cmd.Bool("tmux-default"), StartTimeout: routeStartTimeout, TriggerWait: triggerWait, AuditLimits: configuredLimits().Audit,
			}
			if !cmd.Bool("json") && p.Wait {
				// A waiting route is never silent (specs/triggers.md).
				r.Progress = func(ctx context.Context, s broker.Listing, id string) func() {
					return showProgress(ctx, os.Stderr, s, id)
				}
			}
			q := broker.RouteQuery{Workspace: cmd.String("workspace"), Role: cmd.String("role"), Name: cmd.String("name")}
			res, err := r.Route(ctx, q, p)
			var pe *ipc.Error
			if err != nil && !errors.As(err, &pe) {
				return err
			}
			if cmd.Bool("json") {
				if jerr := printJSON(os.Stdout, res); jerr != nil {
					return jerr
				}
			}
			if err != nil {
				return err
			}
			if !cmd.Bool("json") {
				outln(describeRoute(res))
			}
			if res.Trigger != nil {
				switch res.Trigger.Result {
				case ipc.OutcomeTimeout:
					return exitError{exitTriggerTimeout}
				case ipc.OutcomeFailed, ipc.OutcomeCancelled:
					return exitError{exitTriggerFailed}
				}
			}
			return nil
		},
	}
}

func describeRoute(r broker.RouteResult) string {
	var how string
	switch r.Route {
	case broker.RouteLive:
		how = "to the running session " + r.Name
	case broker.RouteResume:
		how = fmt.Sprintf("to %s, resumed in tmux pane %s", r.Name, r.Pane)
	case broker.RouteFresh:
		how = fmt.Sprintf("to %s, started fresh in tmux pane %s", r.Name, r.Pane)
	case broker.RouteHeadless:
		return r.Message
	}
	line := "routed " + how
	if r.Trigger != nil {
		line += ": " + view.DescribeTrigger(*r.Trigger, r.Name)
	}
	if r.Message != "" {
		line += " " + r.Message
	}
	return line
}

func absExisting(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", err
	}
	return abs, nil
}

// checkBeforeStart refuses, before anything starts, a trigger the session
// would refuse: a route may start a session for it (sup trigger leaves
// these checks to the session it reaches, which makes them anyway).
func checkBeforeStart(p ipc.TriggerParams) error {
	if _, err := trigger.ParseOverride(p.ForceOverride, p.OverrideReason); err != nil {
		return fmt.Errorf("route: --force/--override-reason: %w", err)
	}
	if err := trigger.CheckSize(p.Prompt, configuredMaxPrompt()); err != nil {
		return fmt.Errorf("route: %w", err)
	}
	return nil
}
