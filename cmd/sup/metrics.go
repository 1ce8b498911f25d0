//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/metricserve"
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
				return writeTextfile(ctx, textfile)
			}
			return writeMetrics(ctx, os.Stdout)
		},
	}
}

// writeMetrics collects every supervisor's state and counters and writes
// the exposition.
func writeMetrics(ctx context.Context, w io.Writer) error {
	f, err := fleet()
	if err != nil {
		return err
	}
	snap, failed, err := f.Metrics(ctx)
	if err != nil {
		return err
	}
	for _, err := range failed {
		errf("sup: %v\n", err)
	}
	return broker.WriteMetrics(w, snap, time.Now())
}

// writeTextfile writes the exposition next to path and renames it over
// path, so node_exporter reads the old file or the new one, never half.
// The temporary name starts with a dot and does not end in .prom, which
// the textfile collector ignores.
func writeTextfile(ctx context.Context, path string) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("metrics: --textfile %s: directory %s does not exist (create it, or name a file in an existing directory)", path, dir)
	}
	var buf bytes.Buffer
	if err := writeMetrics(ctx, &buf); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("metrics: --textfile %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // Best effort: gone after the rename.
	_, err = tmp.Write(buf.Bytes())
	if err == nil {
		err = tmp.Chmod(0o644) // node_exporter often runs as another user
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("metrics: --textfile %s: %w", path, err)
	}
	return nil
}

// metricsTTL is how long one collection answers scrapes: Prometheus
// scrapes every 15 s or more, so a second-old body is fresh, and a storm of
// scrapes costs the supervisors one fan-out a second (specs/security.md,
// "Resource limits").
const metricsTTL = time.Second

// metricsCollectTimeout bounds one collection, whoever waits for it: the
// slowest host's deadline plus the local fan-out.
const metricsCollectTimeout = broker.HostDeadline + 2*broker.FanoutTimeout

// serveMetrics answers GET /metrics until ctx ends, from one collection
// shared by concurrent scrapes and reused for metricsTTL. It listens before
// saying where, so "serving" means a scrape can connect.
func serveMetrics(ctx context.Context, addr string, allowRemote bool) error {
	loopback, err := loopbackAddr(addr)
	if err != nil {
		return err
	}
	if !loopback && !allowRemote {
		return fmt.Errorf("metrics: --listen %s is reachable from other hosts; the sessions' sockets are owner-only, so exposing their state needs --allow-remote (or listen on 127.0.0.1:PORT)", addr)
	}
	if _, err := runtimeDir(); err != nil {
		return err // before listening: a scrape would only show this error
	}
	lns, err := metricserve.Listen(ctx, addr)
	if err != nil {
		return fmt.Errorf("metrics: --listen %s: %w", addr, err)
	}
	if !loopback {
		fmt.Fprintf(os.Stderr, "sup: warning: serving every session's state to other hosts on %s, without authentication\n", addr)
	}
	shared := &metricserve.Shared{TTL: metricsTTL, Timeout: metricsCollectTimeout,
		Collect: func(ctx context.Context) ([]byte, error) {
			var buf bytes.Buffer
			err := writeMetrics(ctx, &buf)
			return buf.Bytes(), err
		}}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metricserve.Handler(shared, "text/plain; version=0.0.4; charset=utf-8"))
	srv := metricserve.NewServer(mux, metricsCollectTimeout+5*time.Second,
		slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn))
	for _, ln := range lns {
		for _, a := range metricserve.Describe(ln) {
			fmt.Fprintf(os.Stderr, "sup: serving http://%s/metrics\n", a)
		}
	}
	if err := metricserve.Serve(ctx, srv, lns); err != nil {
		return fmt.Errorf("metrics: serve %s: %w", addr, err)
	}
	return nil
}

// loopbackAddr checks that addr is HOST:PORT and tells whether only this
// host can reach it: a loopback IP or "localhost". An empty host means
// every interface.
func loopbackAddr(addr string) (bool, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false, fmt.Errorf("metrics: --listen %q is not HOST:PORT (e.g. 127.0.0.1:9464, [::1]:9464 or localhost:0 for any free port)", addr)
	}
	if host == "localhost" {
		return true, nil
	}
	if host == "" {
		return false, nil
	}
	ip := net.ParseIP(host)
	if ip == nil {
		// A name other than localhost may resolve anywhere: treat it as remote.
		return false, nil
	}
	return ip.IsLoopback(), nil
}
