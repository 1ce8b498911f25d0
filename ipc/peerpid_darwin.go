package ipc

import "golang.org/x/sys/unix"

// peerPID is the peer's pid (LOCAL_PEERPID), 0 if unknown: it only names
// the peer in logs and groups its connections (server.go's per-pid limit).
func peerPID(fd int) int {
	pid, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		return 0
	}
	return pid
}
