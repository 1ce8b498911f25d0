//go:build linux

package web

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/ipc"
)

// An agent runs as the operator's uid, so the uid check alone would serve
// it: it can read the URL with the token from the operator's pane
// (`tmux capture-pane`) and post answers the supervisor audits as the
// operator's. So the connecting process decides, as it does on the
// supervisor's socket: the client socket's inode (/proc/net/tcp) names the
// processes holding it (/proc/*/fd of our uid), and the supervisor's rule
// (caller.Decide, the agent-tree walk) classifies each. A connection any
// agent holds, or whose process cannot be found, gets 403 on every
// request and never a cookie (specs/web.md, "Agents").
//
// All of it runs on the connection's first Read, in net/http's
// per-connection goroutine, not in Accept: another uid looping connects
// must not hold up the operator's (specs/web.md, "Other users").

// peerCheckTimeout bounds one connection's check; past it the connection
// is refused (fail closed), not served unchecked.
const peerCheckTimeout = 5 * time.Second

// errRefusedPeer ends a refused connection's reads. io.EOF, so that
// net/http closes it quietly (a flood must not become a flood of log
// lines; the refusal log is rate-limited instead).
var errRefusedPeer = io.EOF

// peerVerdict is what the first read of a loopback connection decided.
type peerVerdict struct {
	close  bool   // another uid's, or no socket: closed unread
	refuse string // else, when set: every request gets 403 with this
}

// ownerListener hands out TCP connections wrapped so that their first Read
// checks the peer.
type ownerListener struct {
	net.Listener
	check func(net.Conn) peerVerdict
}

func (l *ownerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if _, ok := c.RemoteAddr().(*net.TCPAddr); !ok {
		return c, nil
	}
	return &checkedConn{Conn: c, check: l.check}, nil
}

// checkedConn runs its check once, on its first Read (or when a handler
// asks for the verdict, whichever comes first).
type checkedConn struct {
	net.Conn
	check func(net.Conn) peerVerdict
	once  sync.Once
	v     peerVerdict
}

func (c *checkedConn) verdict() peerVerdict {
	c.once.Do(func() { c.v = c.check(c.Conn) })
	return c.v
}

func (c *checkedConn) Read(b []byte) (int, error) {
	if c.verdict().close {
		_ = c.Conn.Close() // Best effort: refused, nothing to say to it.
		return 0, errRefusedPeer
	}
	return c.Conn.Read(b)
}

type connKey struct{}

// withConn is http.Server.ConnContext: the handlers find the connection's
// verdict through it (refusedBy).
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// refusedBy is the 403 message for r's connection, "" when it is served.
func refusedBy(r *http.Request) string {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if cc, ok := c.(*checkedConn); ok {
		return cc.verdict().refuse
	}
	return ""
}

// checkPeer decides a connection (ownerListener). One from another host
// (--allow-remote: TLS and the token guard it) has no local process; but
// one to a non-loopback address of this host (its LAN or tailnet address)
// may be an agent's, so a non-loopback connection is served unchecked
// only when the kernel knows no local socket at its client's end.
func (s *Server) checkPeer(c net.Conn) peerVerdict {
	client := c.RemoteAddr().String()
	uid, inode, err := peerUID(c)
	if ra, _ := c.RemoteAddr().(*net.TCPAddr); !ra.IP.IsLoopback() && err != nil {
		return peerVerdict{}
	}
	switch {
	case err != nil:
		s.refusals.warn("web: refused a connection", "client", client, "why", "cannot tell the client's uid: "+err.Error())
		return peerVerdict{close: true}
	case uid != s.uid:
		s.refusals.warn("web: refused a connection of another user", "client", client,
			"why", fmt.Sprintf("the client runs as uid %d; sup web serves only uid %d", uid, s.uid))
		return peerVerdict{close: true}
	case inode == 0:
		// A socket no process holds any more (TIME_WAIT, or closed and
		// orphaned; the kernel reports uid 0 for one): the client is
		// gone, and scanning every process for it would let a connect
		// loop cost a scan each.
		s.refusals.warn("web: refused a connection", "client", client, "why", "the client closed its socket before it was checked")
		return peerVerdict{close: true}
	}
	who, err := s.socketCaller(inode, time.Now().Add(peerCheckTimeout))
	if err != nil {
		s.refusals.warn("web: refused a connection: cannot tell which process made it", "client", client, "why", err.Error())
		return peerVerdict{refuse: "sup web serves the operator only, and cannot tell which process made this connection (" +
			err.Error() + "); nothing done"}
	}
	if !who.IsOperator() {
		s.refusals.warn("web: refused a connection from an agent's process tree", "client", client,
			"caller", who.Label(), "caller_pid", who.PID, "chain", who.Chain)
		return peerVerdict{refuse: fmt.Sprintf("sup web serves the operator only; this connection comes from %s's process tree; nothing done", agentName(who))}
	}
	return peerVerdict{}
}

// agentName names c's agent for the refusal: its own session's name.
func agentName(c ipc.Caller) string {
	if c.Session != nil && c.Session.Name != "" {
		return "agent " + strconv.Quote(c.Session.Name)
	}
	if c.Session != nil && c.Session.ID != "" {
		return "the agent of session " + c.Session.ID
	}
	return "an agent of an unidentified session (pid " + strconv.Itoa(c.PID) + ")"
}

// socketCaller classifies every process of our uid holding the socket
// inode: an agent if any is one. When none is found among the processes
// whose fds it can read, the processes of our uid it cannot read (not
// dumpable: a browser's sandboxed network process, or an agent hiding)
// stand in for the holder, each classified the same way; none at all is
// an error.
func (s *Server) socketCaller(inode uint64, deadline time.Time) (ipc.Caller, error) {
	holders, hidden, err := socketHolders(inode, s.uid, deadline)
	if err != nil {
		return ipc.Caller{}, err
	}
	cands := holders
	if len(cands) == 0 {
		cands = hidden
	}
	if len(cands) == 0 {
		return ipc.Caller{}, fmt.Errorf("no process of uid %d holds the client's socket (inode %d): it exited, or runs in a pid namespace sup web cannot see", s.uid, inode)
	}
	var op ipc.Caller
	for _, h := range cands {
		if time.Now().After(deadline) {
			return ipc.Caller{}, fmt.Errorf("the check took longer than %s", peerCheckTimeout)
		}
		v, err := caller.Decide(caller.ProcFS{}, h.pid, caller.SelfConfig(0))
		if err != nil {
			return ipc.Caller{}, err
		}
		// The walk read the holder and not a successor given its pid:
		// the socket outlives neither.
		if h.fd >= 0 && !holds(h.pid, h.fd, inode) {
			return ipc.Caller{}, fmt.Errorf("process %d closed the client's socket while its ancestry was read", h.pid)
		}
		c := s.ident.Caller(v)
		if !c.IsOperator() {
			return c, nil
		}
		op = c
	}
	return op, nil
}

// holder is a process holding the socket at fd (-1: not known, a process
// whose fds cannot be read).
type holder struct{ pid, fd int }

// socketHolders scans /proc for the processes of uid holding socket inode,
// and lists those of uid whose fds it cannot read.
func socketHolders(inode uint64, uid int, deadline time.Time) (holders, hidden []holder, err error) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, nil, err
	}
	want := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	var rootOwned []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("the scan for the client's process took longer than %s", peerCheckTimeout)
		}
		dir := "/proc/" + p.Name()
		fi, err := os.Stat(dir)
		if err != nil {
			continue // gone
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		if int(st.Uid) != uid {
			if st.Uid == 0 && uid != 0 {
				rootOwned = append(rootOwned, pid)
			}
			continue
		}
		fds, err := os.ReadDir(dir + "/fd")
		if err != nil {
			if errors.Is(err, os.ErrPermission) {
				hidden = append(hidden, holder{pid: pid, fd: -1})
			}
			continue
		}
		for _, f := range fds {
			if l, err := os.Readlink(dir + "/fd/" + f.Name()); err == nil && l == want {
				fd, _ := strconv.Atoi(f.Name()) // Best effort: a name of /proc/PID/fd is a number.
				holders = append(holders, holder{pid: pid, fd: fd})
			}
		}
	}
	if len(holders) == 0 {
		// A process of ours that is not dumpable shows /proc/PID as
		// root's: its status says whose it is.
		for _, pid := range rootOwned {
			if realUID(pid) == uid {
				hidden = append(hidden, holder{pid: pid, fd: -1})
			}
		}
	}
	return holders, hidden, nil
}

func holds(pid, fd int, inode uint64) bool {
	l, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(fd))
	return err == nil && l == "socket:["+strconv.FormatUint(inode, 10)+"]"
}

// realUID is pid's real uid from /proc/PID/status, -1 if unknown.
func realUID(pid int) int {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Uid:"); ok {
			fs := strings.Fields(rest)
			if len(fs) > 0 {
				if u, err := strconv.Atoi(fs[0]); err == nil {
					return u
				}
			}
			return -1
		}
	}
	return -1
}

// refusalLog logs refused connections at most once per interval, with the
// count of those it did not log since: a connect loop must not flood the
// session log.
type refusalLog struct {
	log      *slog.Logger
	now      func() time.Time
	interval time.Duration

	mu    sync.Mutex
	last  time.Time
	since int
}

func (r *refusalLog) warn(msg string, args ...any) {
	r.mu.Lock()
	now := r.now()
	if !r.last.IsZero() && now.Sub(r.last) < r.interval {
		r.since++
		r.mu.Unlock()
		return
	}
	n := r.since
	r.since, r.last = 0, now
	r.mu.Unlock()
	if n > 0 {
		args = append(args, "refused_unlogged", n)
	}
	r.log.Warn(msg, args...)
}
