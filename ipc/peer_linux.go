package ipc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// peerCredFD reads SO_PEERCRED: the uid, gid and pid the peer had when it
// connected or listened.
func peerCredFD(fd int) (Peer, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials (SO_PEERCRED): %w", err)
	}
	if cred == nil {
		return Peer{}, errors.New("ipc: peer credentials: none reported")
	}
	return Peer{UID: int(cred.Uid), GID: int(cred.Gid), PID: int(cred.Pid)}, nil
}
