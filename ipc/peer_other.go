//go:build !linux

package ipc

import (
	"errors"
	"net"
)

// peerCred is only implemented with Linux's SO_PEERCRED. Elsewhere every
// peer is refused: a socket that cannot check who connects must not accept
// keystrokes for an agent.
func peerCred(net.Conn) (Peer, error) {
	return Peer{}, errors.New("ipc: peer credentials are only checked on Linux; refusing the connection")
}
