package ipc

import (
	"context"
	"fmt"
	"net"
	"syscall"
)

// Peer is the process at the other end of a connection, as the kernel
// reported it when the connection was accepted (SO_PEERCRED). The PID may
// have exited or been reused since; it is for logs and audit, not for
// signalling.
type Peer struct {
	UID int
	GID int
	PID int
	// pidfd+1 of the peer process (SO_PEERPIDFD, Linux 6.5+), 0 when the
	// kernel gave none; held from accept until the connection is
	// classified, so StillThere can tell the same process from a reused
	// pid.
	pidfd1 int
}

// StillThere reports whether the peer process the kernel named at
// connect time is still running, so that what was read about its pid
// (its ancestry) was read about it. known is false when the kernel gave
// no pidfd (before Linux 6.5, other systems): then the caller cannot tell.
func (p Peer) StillThere() (alive, known bool) {
	if p.pidfd1 == 0 {
		return false, false
	}
	return pidfdAlive(p.pidfd1 - 1), true
}

type peerKey struct{}

// PeerFromContext returns the peer of the connection a handler's request
// came in on, so that handlers can record who asked (audit lines for
// inject/trigger, for example).
func PeerFromContext(ctx context.Context) (Peer, bool) {
	p, ok := ctx.Value(peerKey{}).(Peer)
	return p, ok
}

func withPeer(ctx context.Context, p Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

// peerCred asks the kernel who is at the other end of c (peerCredFD, one
// per OS in peer_*.go).
func peerCred(c net.Conn) (Peer, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return Peer{}, fmt.Errorf("ipc: peer credentials: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials: %w", err)
	}
	var p Peer
	var perr error
	if err := raw.Control(func(fd uintptr) { p, perr = peerCredFD(int(fd)) }); err != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials: %w", err)
	}
	return p, perr
}
