//go:build linux

package main

import (
	"context"
	"errors"
	"os"

	"github.com/sup-tmux/sup/broker"
	"github.com/urfave/cli/v3"
)

func metricsCommand() *cli.Command {
	return &cli.Command{
		Name:  "metrics",
		Usage: "every session's state as Prometheus text exposition: printed, served over HTTP (--listen) or written for node_exporter (--textfile)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "serve /metrics over HTTP on HOST:PORT (loopback unless --allow-remote)"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "let --listen use an address other hosts can reach (the sockets themselves are owner-only)"},
			&cli.StringFlag{Name: "textfile", Usage: "write the exposition to PATH atomically (for node_exporter's textfile collector)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			listen, textfile := cmd.String("listen"), cmd.String("textfile")
			switch {
			case listen != "" && textfile != "":
				return errors.New("metrics: --listen and --textfile exclude each other: serve, or write a file")
			case listen != "":
				return serveMetrics(ctx, listen, cmd.Bool("allow-remote"))
			case textfile != "":
				return broker.WriteTextfile(ctx, textfile, exposition)
			}
			body, err := exposition(ctx)
			if err != nil {
				return err
			}
			_, err = os.Stdout.Write(body)
			return err
		},
	}
}

// exposition is one collection of every supervisor's state and counters,
// of every host; config.yaml is read at each one, so a long-running
// server follows its hosts: as they change.
func exposition(ctx context.Context) ([]byte, error) {
	f, err := fleet()
	if err != nil {
		return nil, err
	}
	return f.Exposition(ctx, func(err error) { errf("sup: %v\n", err) })
}

// serveMetrics is --listen: it listens before saying where, so "serving"
// means a scrape can connect.
func serveMetrics(ctx context.Context, addr string, allowRemote bool) error {
	loopback, err := broker.CheckMetricsAddr(addr, allowRemote)
	if err != nil {
		return err
	}
	if _, err := runtimeDir(); err != nil {
		return err // before listening: a scrape would only show this error
	}
	l, err := broker.ListenMetrics(ctx, addr)
	if err != nil {
		return err
	}
	if !loopback {
		errf("sup: warning: serving every session's state to other hosts on %s, without authentication\n", addr)
	}
	for _, u := range l.URLs() {
		errf("sup: serving %s\n", u)
	}
	return l.Serve(ctx, exposition)
}
