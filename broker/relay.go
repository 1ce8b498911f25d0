//go:build linux

package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
	"golang.org/x/sys/unix"
)

// The relay's methods and events (specs/broker.md, "The relay"): the v1
// protocol over ssh's stdio, for one host's supervisors.
const (
	// MethodRelayList answers RelayListResult: every supervisor of the
	// host with its state (Discover on the host's runtime dir).
	MethodRelayList = "relay.list"
	// MethodRelayWatch starts following the host's supervisors; their
	// events come as RelayEvent (and RelayGap) to a subscriber.
	MethodRelayWatch = "relay.watch"
	// RelayEvent carries one supervisor event: data is RelayEventData.
	RelayEvent = "session_event"
	// RelayGap says that a supervisor no longer buffered some events
	// after the seq the broker resumed from: data is RelayGapData.
	RelayGap = "session_gap"
)

// RelayEventData is a RelayEvent's data: one supervisor event, named by
// its session. Data is the event's own data, passed on as it came.
type RelayEventData struct {
	SessionID string         `msgpack:"session_id"`
	Name      string         `msgpack:"name"`
	Event     string         `msgpack:"event"`
	Seq       uint64         `msgpack:"seq"`
	At        int64          `msgpack:"at"` // unix ms
	Data      map[string]any `msgpack:"data"`
}

// RelayGapData is a RelayGap's data: the supervisor's events after Since
// were no longer buffered; Seq is its seq at the resubscription.
type RelayGapData struct {
	SessionID string `msgpack:"session_id"`
	Name      string `msgpack:"name"`
	Since     uint64 `msgpack:"since"`
	Seq       uint64 `msgpack:"seq"`
}

// RelayListParams are relay.list's params.
type RelayListParams struct {
	// TimeoutMS bounds each supervisor's answer (0: 1 s).
	TimeoutMS int64 `msgpack:"timeout_ms,omitempty"`
	// Metrics asks each supervisor's metrics too, on the same connection
	// (for `sup metrics` across hosts).
	Metrics bool `msgpack:"metrics,omitempty"`
}

// RelayListResult answers relay.list.
type RelayListResult struct {
	Host     string        `msgpack:"host"` // the host's short hostname
	Sessions []RelayState  `msgpack:"sessions"`
	Errors   []RelayFailed `msgpack:"errors"`
}

// RelayState is one supervisor of the host.
type RelayState struct {
	Socket  string             `msgpack:"socket"`
	State   ipc.State          `msgpack:"state"`
	Metrics *ipc.MetricsResult `msgpack:"metrics,omitempty"` // with relay.list's metrics, when it answered
}

// RelayFailed is a socket of the host that did not answer.
type RelayFailed struct {
	Socket string `msgpack:"socket"`
	Error  string `msgpack:"error"`
}

// RelayWatchParams are relay.watch's params.
type RelayWatchParams struct {
	// Since maps a session id to the last seq the caller saw of it: that
	// supervisor is subscribed with since_seq, so nothing is repeated or
	// lost across a relay restart. Sessions not in it start live.
	Since map[string]uint64 `msgpack:"since,omitempty"`
}

// RelayConfig is what a relay serves.
type RelayConfig struct {
	RuntimeDir string        // the host's runtime dir
	Version    string        // sup's version, for hello
	Idle       time.Duration // exit after this long without a request (0: 10 min); a subscribed stream never idles
	Logger     *slog.Logger  // nil: discard
}

// ServeRelay serves the relay protocol on in/out (ssh's stdio) until in
// closes, the idle timeout passes or ctx ends. It is an ipc.Server behind
// a socketpair, so the relay enforces the protocol exactly as a
// supervisor does; the peer check sees this process, the ssh user.
func ServeRelay(ctx context.Context, in io.Reader, out io.Writer, cfg RelayConfig) error {
	if cfg.Idle <= 0 {
		cfg.Idle = 10 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	srvEnd, ourEnd, err := socketPair()
	if err != nil {
		return err
	}
	defer ourEnd.Close()
	srv := ipc.NewServer(ipc.ServerConfig{Version: cfg.Version, Events: []string{RelayEvent, RelayGap},
		IdleTimeout: cfg.Idle, MaxConns: 1, Logger: cfg.Logger})
	hostname := LocalHostName()
	srv.Handle(MethodRelayList, func(ctx context.Context, req *ipc.Request) (any, error) {
		var (
			p      RelayListParams
			failed []RelayFailed
			err    error
		)
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		timeout := time.Duration(p.TimeoutMS) * time.Millisecond
		if timeout <= 0 {
			timeout = time.Second
		}
		var snap Snapshot
		if p.Metrics {
			snap, err = CollectMetrics(ctx, cfg.RuntimeDir, timeout)
		} else {
			var res Result
			res, err = Discover(ctx, cfg.RuntimeDir, timeout)
			snap = Snapshot{Sessions: res.Sessions}
			for _, e := range res.Errors {
				failed = append(failed, RelayFailed{Socket: e.Socket, Error: e.Err.Error()})
			}
		}
		if err != nil {
			return nil, err
		}
		out := RelayListResult{Host: hostname, Sessions: []RelayState{}, Errors: append([]RelayFailed{}, failed...)}
		for _, s := range snap.Sessions {
			rs := RelayState{Socket: s.Socket, State: s.State}
			if m, ok := snap.Metrics[s.Socket]; ok {
				rs.Metrics = &m
			}
			out.Sessions = append(out.Sessions, rs)
		}
		for range snap.Unanswered {
			out.Errors = append(out.Errors, RelayFailed{Socket: "?", Error: "did not answer"})
		}
		return out, nil
	})
	var watchOnce sync.Once
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	srv.Handle(MethodRelayWatch, func(_ context.Context, req *ipc.Request) (any, error) {
		var p RelayWatchParams
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		watchOnce.Do(func() {
			go followAll(watchCtx, cfg.RuntimeDir, time.Second, func(id string) (uint64, bool) {
				seq, ok := p.Since[id]
				return seq, ok
			}, func(ev SessionEvent) {
				if ev.Event == gapEvent {
					since, _ := ev.Data["since"].(uint64) // followAll's own value
					srv.Publish(RelayGap, RelayGapData{SessionID: ev.Session, Name: ev.Name, Since: since, Seq: ev.Seq})
					return
				}
				srv.Publish(RelayEvent, RelayEventData{SessionID: ev.Session, Name: ev.Name,
					Event: ev.Event, Seq: ev.Seq, At: ev.At, Data: ev.Data})
			})
		})
		return map[string]any{}, nil
	})
	go srv.Serve(&oneConnListener{conn: srvEnd, closed: make(chan struct{})}) // Best effort: ends with srv.Close.
	defer srv.Close()
	stop := context.AfterFunc(ctx, func() { ourEnd.Close() })
	defer stop()
	go func() {
		io.Copy(ourEnd, in) // Best effort: stdin closing is how the broker hangs up.
		// Through SyscallConn, not Fd(): ourEnd may be closing meanwhile.
		if rc, err := ourEnd.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { unix.Shutdown(int(fd), unix.SHUT_WR) }) // Best effort: closed is hung up too.
		}
	}()
	_, err = io.Copy(out, ourEnd) // until the server closes the connection
	if err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("relay: write to ssh: %w", err)
	}
	return nil
}

// socketPair is a connected pair: the server's end as a net.Conn (deadlines,
// SO_PEERCRED) and ours as a file.
func socketPair() (net.Conn, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	f := os.NewFile(uintptr(fds[0]), "relay-server")
	nc, err := net.FileConn(f)
	f.Close() // FileConn dup'ed it.
	if err != nil {
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	return nc, os.NewFile(uintptr(fds[1]), "relay"), nil
}

// oneConnListener hands out one connection, then waits until closed.
type oneConnListener struct {
	mu     sync.Mutex
	conn   net.Conn
	closed chan struct{}
	once   sync.Once
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		return c, nil
	}
	<-l.closed
	return nil, net.ErrClosed
}

func (l *oneConnListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return &net.UnixAddr{Name: "relay", Net: "unix"} }

// RelayConnect joins in/out to one supervisor's socket, byte for byte: how
// the broker talks to a single remote session (`sup relay --session ID`),
// so every verb's own client works unchanged through ssh. A session that
// is not there gets one id-0 error frame, as a refusing server would send.
func RelayConnect(in io.Reader, out io.Writer, runtimeDir, sessionID string) error {
	path, err := paths.Socket(runtimeDir, sessionID)
	var nc net.Conn
	if err == nil {
		nc, err = net.DialTimeout("unix", path, 2*time.Second)
	}
	if err == nil {
		if err = ipc.CheckServer(nc, path); err != nil {
			nc.Close()
			e := ipc.AsError(err)
			ipc.WriteFrame(out, ipc.Response{ID: 0, OK: false, Error: e}) // Best effort: we exit anyway.
			return e
		}
	}
	if err != nil {
		code := ipc.CodeInternal
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ECONNREFUSED) {
			code = ipc.CodeTargetNotFound
		}
		e := ipc.Errorf(code, "relay on %s: session %q: %v", LocalHostName(), sessionID, err)
		ipc.WriteFrame(out, ipc.Response{ID: 0, OK: false, Error: e}) // Best effort: we exit anyway.
		return e
	}
	defer nc.Close()
	go func() {
		io.Copy(nc, in) // Best effort: stdin closing is the broker hanging up.
		nc.(*net.UnixConn).CloseWrite()
	}()
	io.Copy(out, nc) // Best effort: ends when the supervisor closes.
	return nil
}

// LocalHostName is this host's short hostname (up to the first dot): the
// local host's name in the host column.
func LocalHostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	for i := range len(h) {
		if h[i] == '.' {
			return h[:i]
		}
	}
	return h
}
