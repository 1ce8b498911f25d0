//go:build !linux

package ipc

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// newSocket is Listen's socket before bind. macOS has no SOCK_CLOEXEC, so
// the flag is set under syscall.ForkLock, as the standard library does, and
// no fork in between inherits the descriptor. There is no fchmod: the BSDs
// refuse it on a socket (EINVAL). Listen's chmod after bind sets the mode,
// and until listen(2) every connect is refused, so no one connects through
// the wider mode bind gave the file.
func newSocket() (int, error) {
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	return fd, nil
}

// peerClosed: on these systems EOF on a Unix socket is taken as the peer
// hanging up; their poll does not tell a half-close apart portably.
func peerClosed(net.Conn) bool { return true }
