package ipc

import (
	"errors"

	"golang.org/x/sys/unix"
)

// pidAlive asks a pidfd, which polls readable once the process has exited,
// reaped or not; without pidfds (Linux < 5.3) kill(pid, 0) decides.
func pidAlive(pid int) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return false
	}
	if err != nil {
		return killAlive(pid)
	}
	defer unix.Close(fd) // Best effort: read-only.
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err != nil || n == 0
}
