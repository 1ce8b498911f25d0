package ipc

import (
	"fmt"

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
