//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/internal/safetext"
)

// routeOnHost is `sup route --host NAME`: the host's own `sup route` runs
// there through ssh (the same multiplexed connection), so a missing
// session is started by that host's route logic, registry and tmux. The
// flags go as given (--doc is a path on that host), the requester names
// this host, TEXT - passes stdin through, and its exit status is ours.
func routeOnHost(ctx context.Context, cmd *cli.Command, name string) error {
	f, err := fleet()
	if err != nil {
		return err
	}
	remote, _, err := broker.SelectHosts(f.Hosts, name)
	if err != nil {
		return fmt.Errorf("route: %w", err)
	}
	if len(remote) != 1 {
		return fmt.Errorf("route: --host %q: give one host, not all", name)
	}
	h := remote[0]
	args := []string{h.Sup, "route"}
	for _, f := range cmd.Flags {
		n := f.Names()[0]
		if n == "host" || n == "help" || !cmd.IsSet(n) {
			continue
		}
		args = append(args, fmt.Sprintf("--%s=%v", n, cmd.Value(n)))
	}
	if !cmd.IsSet("tmux-default") {
		// The other host has no caller's tmux: its user's default server
		// is where the session belongs (specs/broker.md, "Routing").
		args = append(args, "--tmux-default")
	}
	if !cmd.IsSet("requester") {
		args = append(args, "--requester="+broker.OriginRequester("cli:"+view.CurrentUser()))
	}
	args = append(args, "--", cmd.Args().First())
	// The remote's output is another host's text: line by line, each a
	// safetext field, before the operator's terminal.
	stdout, stderr := &safetext.Writer{W: os.Stdout}, &safetext.Writer{W: os.Stderr}
	err = f.RunOn(ctx, h, args, os.Stdin, stdout, stderr)
	stdout.Close()
	stderr.Close()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() == 255:
		return fmt.Errorf("route on host %s: ssh failed (its message is above)", h.Name)
	case errors.As(err, &ee):
		return exitError{ee.ExitCode()}
	}
	return fmt.Errorf("route on host %s: %w", h.Name, err)
}
