//go:build darwin || freebsd

package ipc

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerCred reads the peer's credentials with LOCAL_PEERCRED, the BSDs'
// SO_PEERCRED (what getpeereid(3) uses): the effective uid and groups the
// peer had when it connected or listened. The pid comes from peerPID.
func peerCred(c net.Conn) (Peer, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return Peer{}, fmt.Errorf("ipc: peer credentials: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials: %w", err)
	}
	var x *unix.Xucred
	var pid int
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		x, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if cerr == nil {
			pid = peerPID(int(fd))
		}
	}); err != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials: %w", err)
	}
	if cerr != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials (LOCAL_PEERCRED): %w", cerr)
	}
	// XUCRED_VERSION is 0; another version is a layout this code does not
	// know, and a misread uid would be a security hole.
	if x == nil || x.Version != 0 || x.Ngroups < 1 {
		return Peer{}, fmt.Errorf("ipc: peer credentials (LOCAL_PEERCRED): unexpected answer %+v", x)
	}
	return Peer{UID: int(x.Uid), GID: int(x.Groups[0]), PID: pid}, nil
}
