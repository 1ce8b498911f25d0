//go:build !linux && !darwin && !freebsd

package ipc

import (
	"fmt"
	"runtime"
)

// peerCredFD has no implementation here: sup trusts a socket only after the
// kernel told it the peer's uid (SO_PEERCRED on Linux, LOCAL_PEERCRED on
// macOS and FreeBSD), so on any other system every connection is refused,
// both ways, with this error rather than accepted unchecked.
func peerCredFD(int) (Peer, error) {
	return Peer{}, fmt.Errorf("ipc: peer credentials: not implemented on %s (sup checks them on linux, darwin and freebsd only)", runtime.GOOS)
}

func pidfdAlive(int) bool { return false }

func (p *Peer) closePIDFD() {}
