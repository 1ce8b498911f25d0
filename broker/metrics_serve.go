//go:build linux

package broker

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sup-tmux/sup/internal/atomicfile"
	"github.com/sup-tmux/sup/internal/metricserve"
)

// MetricsTTL is how long one collection answers scrapes: Prometheus
// scrapes every 15 s or more, so a second-old body is fresh, and a storm of
// scrapes costs the supervisors one fan-out a second (specs/security.md,
// "Resource limits").
const MetricsTTL = time.Second

// MetricsCollectTimeout bounds one collection, whoever waits for it: the
// slowest host's deadline plus the local fan-out.
const MetricsCollectTimeout = HostDeadline + 2*FanoutTimeout

// Exposition collects the fleet's metrics (Metrics) and renders them
// (WriteMetrics); the hosts that did not answer go to report.
func (f *Fleet) Exposition(ctx context.Context, report func(error)) ([]byte, error) {
	snap, failed, err := f.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	for _, err := range failed {
		report(err)
	}
	var buf bytes.Buffer
	if err := WriteMetrics(&buf, snap, time.Now()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteTextfile writes a collection to path atomically (atomicfile), so
// node_exporter reads the old file or the new one, never half; its
// temporary name starts with a dot and does not end in .prom, which the
// textfile collector ignores. The file is 0644: node_exporter often runs
// as another user.
func WriteTextfile(ctx context.Context, path string, collect func(context.Context) ([]byte, error)) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("metrics: --textfile %s: directory %s does not exist (create it, or name a file in an existing directory)", path, dir)
	}
	body, err := collect(ctx)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, body, atomicfile.Options{Mode: 0o644}); err != nil {
		return fmt.Errorf("metrics: --textfile %s: %w", path, err)
	}
	return nil
}

// MetricsListener is `sup metrics --listen`'s sockets, bound before the
// server says where, so "serving" means a scrape can connect.
type MetricsListener struct {
	addr string
	lns  []net.Listener
}

// CheckMetricsAddr checks addr (HOST:PORT) and tells whether only this
// host can reach it. An address other hosts can reach needs allowRemote:
// the sessions' sockets are owner-only, and the server exposes their state
// without authentication.
func CheckMetricsAddr(addr string, allowRemote bool) (loopback bool, err error) {
	loopback, err = loopbackAddr(addr)
	if err != nil {
		return false, err
	}
	if !loopback && !allowRemote {
		return false, fmt.Errorf("metrics: --listen %s is reachable from other hosts; the sessions' sockets are owner-only, so exposing their state needs --allow-remote (or listen on 127.0.0.1:PORT)", addr)
	}
	return loopback, nil
}

// ListenMetrics binds addr, checked by CheckMetricsAddr.
func ListenMetrics(ctx context.Context, addr string) (*MetricsListener, error) {
	lns, err := metricserve.Listen(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: --listen %s: %w", addr, err)
	}
	return &MetricsListener{addr: addr, lns: lns}, nil
}

// URLs are where a scraper finds /metrics, every address of every socket.
func (l *MetricsListener) URLs() []string {
	var out []string
	for _, ln := range l.lns {
		for _, a := range metricserve.Describe(ln) {
			out = append(out, "http://"+a+"/metrics")
		}
	}
	return out
}

// Serve answers GET /metrics until ctx ends, from one collection shared
// by concurrent scrapes and reused for MetricsTTL.
func (l *MetricsListener) Serve(ctx context.Context, collect func(context.Context) ([]byte, error)) error {
	shared := &metricserve.Shared{TTL: MetricsTTL, Timeout: MetricsCollectTimeout, Collect: collect}
	mux := http.NewServeMux()
	var h http.Handler = metricserve.Handler(shared, "text/plain; version=0.0.4; charset=utf-8")
	if loopback, _ := loopbackAddr(l.addr); loopback {
		h = loopbackHostOnly(h)
	}
	mux.Handle("/metrics", h)
	srv := metricserve.NewServer(mux, MetricsCollectTimeout+5*time.Second,
		slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn))
	if err := metricserve.Serve(ctx, srv, l.lns); err != nil {
		return fmt.Errorf("metrics: serve %s: %w", l.addr, err)
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
	return loopbackHost(host), nil
}

// loopbackHost reports whether host (no port; an IPv6 literal with or
// without brackets) names only this host: "localhost" or a loopback IP.
// Any other name may resolve anywhere, and "" is every interface.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// loopbackHostOnly refuses a request whose Host header does not name this
// host's loopback (localhost or a loopback IP, any port). A server on a
// loopback address is for this host's scrapers; a web page the operator
// opens can still reach it by DNS rebinding (a name of the attacker's that
// resolves to 127.0.0.1), and its requests carry that name as Host — the
// sessions' names, workspaces and states must not go to it.
func loopbackHostOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		if !loopbackHost(host) {
			http.Error(w, fmt.Sprintf("metrics: Host %q is not this host's loopback (localhost, 127.0.0.1 or [::1]); a server on a loopback address answers only those (DNS rebinding)", r.Host), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}
