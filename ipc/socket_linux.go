package ipc

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// newSocket is Listen's socket before bind: close-on-exec from birth, and
// fchmod'ed to 0600, because Linux's bind creates the file with the socket
// inode's mode: the socket file is born 0600 whatever the umask.
func newSocket() (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if err := unix.Fchmod(fd, 0o600); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("fchmod: %w", err)
	}
	return fd, nil
}

// peerClosed reports whether the peer of nc has closed its end both ways
// (POLLHUP), not merely shut down its writing (a half-close, which reads
// as EOF too). A socket whose state cannot be read counts as closed.
func peerClosed(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return true
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	closed := true
	if err := raw.Control(func(fd uintptr) {
		pfd := []unix.PollFd{{Fd: int32(fd)}} // no events asked: POLLHUP and POLLERR are always reported
		n, err := unix.Poll(pfd, 0)
		closed = err != nil || (n > 0 && pfd[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0)
	}); err != nil {
		return true
	}
	return closed
}
