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
	p := Peer{UID: int(cred.Uid), GID: int(cred.Gid), PID: int(cred.Pid)}
	if fd, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, soPeerPIDFD); err == nil && fd >= 0 {
		unix.CloseOnExec(fd)
		p.pidfd1 = fd + 1
	}
	return p, nil
}

// soPeerPIDFD is SO_PEERPIDFD (Linux 6.5; x/sys/unix has no name for it
// yet): a pidfd of the process that connected. Older kernels answer
// ENOPROTOOPT.
const soPeerPIDFD = 77

// pidfdAlive: signal 0 through the pidfd fails with ESRCH once the
// process has exited, whatever now holds its pid.
func pidfdAlive(fd int) bool {
	return unix.PidfdSendSignal(fd, 0, nil, 0) == nil
}

func (p *Peer) closePIDFD() {
	if p.pidfd1 != 0 {
		unix.Close(p.pidfd1 - 1)
		p.pidfd1 = 0
	}
}
