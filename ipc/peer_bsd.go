//go:build darwin || freebsd

package ipc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// peerCredFD reads LOCAL_PEERCRED, the BSDs' SO_PEERCRED (what
// getpeereid(3) uses): the effective uid and groups the peer had when it
// connected or listened. The pid comes from peerPID.
func peerCredFD(fd int) (Peer, error) {
	x, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials (LOCAL_PEERCRED): %w", err)
	}
	// XUCRED_VERSION is 0; another version is a layout this code does not
	// know, and a misread uid would be a security hole.
	if x == nil || x.Version != 0 || x.Ngroups < 1 {
		return Peer{}, fmt.Errorf("ipc: peer credentials (LOCAL_PEERCRED): unexpected answer %+v", x)
	}
	return Peer{UID: int(x.Uid), GID: int(x.Groups[0]), PID: peerPID(fd)}, nil
}

func pidfdAlive(int) bool { return false }

func (p *Peer) closePIDFD() {}
