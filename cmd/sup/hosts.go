//go:build linux

package main

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/safetext"
)

// hostFlag picks the hosts a fan-out verb spans (specs/broker.md "Hosts").
var hostFlag = &cli.StringFlag{Name: "host", Usage: "only this host (a name of hosts: in config.yaml, this host's short name), or all (default)"}

// fleet is every supervisor this command reaches, built once per command
// from config.yaml and the environment.
func fleet() (*broker.Fleet, error) { return broker.NewFleet(os.Getenv) }

// hostName is --host's value; "" (every host) without the flag.
func hostName(cmd *cli.Command) string {
	if cmd == nil {
		return ""
	}
	return cmd.String("host")
}

// discoverHosts builds the command's fleet and asks every host --host
// selects (cmd nil: all), telling stderr about the hosts and sockets that
// did not answer.
func discoverHosts(ctx context.Context, cmd *cli.Command) (*broker.Fleet, []broker.HostResult, error) {
	return readHosts(ctx, cmd, (*broker.Fleet).Discover)
}

// listHosts is discoverHosts for display (sup ls): this host's sessions
// come from their state files (broker.List).
func listHosts(ctx context.Context, cmd *cli.Command) (*broker.Fleet, []broker.HostResult, error) {
	return readHosts(ctx, cmd, (*broker.Fleet).List)
}

func readHosts(ctx context.Context, cmd *cli.Command, read func(*broker.Fleet, context.Context, string) ([]broker.HostResult, error)) (*broker.Fleet, []broker.HostResult, error) {
	f, err := fleet()
	if err != nil {
		return nil, nil, err
	}
	results, err := read(f, ctx, hostName(cmd))
	if err != nil {
		return nil, nil, err
	}
	if len(results) == 1 && results[0].Local {
		if _, err := os.Stat(f.RuntimeDir); errors.Is(err, fs.ErrNotExist) {
			errf("sup: runtime dir %s does not exist: no supervisor listens there "+
				"(sup start creates it; if it was deleted, running supervisors recreate it and their sockets at once)\n", f.RuntimeDir)
		}
	}
	for _, r := range results {
		if r.Err != nil {
			errf("sup: %v\n", r.Err)
		}
		for _, e := range r.Errors {
			errf("sup: %s did not answer: %v\n", e.Socket, e.Err)
		}
	}
	return f, results, nil
}

// followAllHosts is `sup events --all` across the hosts --host selects:
// the local supervisors' events and each host's through its relay, one
// JSON line each (naming the host when hosts are configured).
func followAllHosts(ctx context.Context, cmd *cli.Command) error {
	f, err := fleet()
	if err != nil {
		return err
	}
	fo, local, err := f.Select(hostName(cmd))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	enc := safetext.NewEncoder(os.Stdout) // agents' text: C1, DEL and bidi escaped (issue 20)
	var werr error
	err = fo.Follow(ctx, local, func(ev broker.SessionEvent) {
		if err := enc.Encode(ev); err != nil && werr == nil {
			werr = err // stdout closed (| head): stop
			cancel()
		}
	}, func(err error) { errf("sup: %v\n", err) })
	if werr != nil {
		return nil
	}
	return err
}
