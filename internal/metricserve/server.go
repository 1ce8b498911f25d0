package metricserve

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Limits of the HTTP server. A scrape is one small GET answered from
// memory, so these are generous for a scraper and short for an attacker:
// a slowloris client holds a connection at most ReadHeaderTimeout.
const (
	ReadHeaderTimeout = 5 * time.Second
	IdleTimeout       = 30 * time.Second // keep-alive between scrapes (Prometheus scrapes every 15-60 s and reconnects)
	MaxHeaderBytes    = 8 << 10
	MaxConns          = 64 // concurrent connections; more wait in the kernel's accept queue
)

// NewServer is an http.Server for h with every timeout set. writeTimeout
// bounds a whole exchange, the wait for a collection included, so it must
// exceed the collection's timeout.
func NewServer(h http.Handler, writeTimeout time.Duration, errLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadHeaderTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          errLog,
	}
}

// Handler answers GET and HEAD with s's body as contentType; a failed
// collection is a 500 with its error.
func Handler(s *Shared, contentType string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "only GET and HEAD", http.StatusMethodNotAllowed)
			return
		}
		body, err := s.Get(r.Context())
		if err != nil {
			if r.Context().Err() != nil {
				return // the scraper hung up
			}
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body) // Best effort: the scraper hung up.
	})
}

// Serve serves srv on every listener, sharing one cap of MaxConns
// connections across them, until ctx ends; then it closes srv. While the
// cap is reached, every answer closes its connection (Connection: close):
// otherwise the clients holding the slots would keep them alive forever and
// the ones waiting in the accept queue would starve.
func Serve(ctx context.Context, srv *http.Server, lns []net.Listener) error {
	sem := make(chan struct{}, MaxConns)
	h := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(sem) == cap(sem) {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	errs := make(chan error, len(lns))
	for _, ln := range lns {
		go func() { errs <- srv.Serve(LimitListener(ln, sem)) }()
	}
	var first error
	for range lns {
		if err := <-errs; err != nil && !errors.Is(err, http.ErrServerClosed) && first == nil {
			first = err
			srv.Close() // one listener failing ends the others
		}
	}
	return first
}

// LimitListener accepts a connection only while sem has room, and frees
// the room when the connection closes (golang.org/x/net/netutil's
// LimitListener, with the semaphore shared between listeners).
func LimitListener(ln net.Listener, sem chan struct{}) net.Listener {
	return &limitListener{Listener: ln, sem: sem, done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// Listen listens on addr (HOST:PORT). "localhost" means every loopback
// address it resolves to — 127.0.0.1 and ::1 where the host has IPv6 — on
// one port (the port the first one got, for port 0). Any other host is one
// listener, as net.Listen makes it.
func Listen(ctx context.Context, addr string) ([]net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host != "localhost" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, err
		}
		return []net.Listener{ln}, nil
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	var lns []net.Listener
	seen := map[string]bool{}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() || seen[ip.IP.String()] {
			continue // localhost resolving elsewhere is not served
		}
		seen[ip.IP.String()] = true
		ln, err := net.Listen("tcp", net.JoinHostPort(ip.IP.String(), port))
		if err != nil {
			if len(lns) > 0 && ip.IP.To4() == nil {
				continue // no IPv6 loopback on this host: IPv4 alone
			}
			closeAll(lns)
			return nil, err
		}
		lns = append(lns, ln)
		if port == "0" {
			port = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		}
	}
	if len(lns) == 0 {
		return nil, fmt.Errorf("localhost resolves to no loopback address (%v)", ips)
	}
	return lns, nil
}

func closeAll(lns []net.Listener) {
	for _, ln := range lns {
		ln.Close()
	}
}

// Describe lists the addresses ln is reachable on: its own, or, for an
// unspecified one (0.0.0.0, ::), every interface address of the families
// it accepts (IPv4 only for 0.0.0.0; both for ::, which Go listens on
// dual-stack).
func Describe(ln net.Listener) []string {
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !a.IP.IsUnspecified() {
		return []string{ln.Addr().String()}
	}
	v4only := a.IP.To4() != nil
	ifAddrs, err := net.InterfaceAddrs()
	if err != nil {
		return []string{ln.Addr().String()}
	}
	var out []string
	for _, ia := range ifAddrs {
		n, ok := ia.(*net.IPNet)
		if !ok || n.IP.IsLinkLocalUnicast() || (v4only && n.IP.To4() == nil) {
			continue
		}
		out = append(out, net.JoinHostPort(n.IP.String(), strconv.Itoa(a.Port)))
	}
	if len(out) == 0 {
		return []string{ln.Addr().String()}
	}
	return out
}
