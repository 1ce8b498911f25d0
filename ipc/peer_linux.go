package ipc

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

func peerCred(c net.Conn) (Peer, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return Peer{}, fmt.Errorf("ipc: peer credentials: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials: %w", err)
	}
	if cerr != nil {
		return Peer{}, fmt.Errorf("ipc: peer credentials (SO_PEERCRED): %w", cerr)
	}
	if cred == nil {
		return Peer{}, errors.New("ipc: peer credentials: none reported")
	}
	return Peer{UID: int(cred.Uid), GID: int(cred.Gid), PID: int(cred.Pid)}, nil
}
