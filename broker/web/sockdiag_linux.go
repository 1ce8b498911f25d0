//go:build linux

package web

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// diagUID asks the kernel (NETLINK_SOCK_DIAG, an exact lookup of one
// socket by its addresses) for the uid and inode of the TCP socket whose
// local address is local and remote remote: one socket looked up, where
// /proc/net/tcp lists them all, TIME_WAIT included, which a connect loop
// grows. errPeerUnknown when the kernel knows no such socket.
func diagUID(local, remote *net.TCPAddr, family uint8) (uid int, inode uint64, err error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, 0, fmt.Errorf("sock_diag: %w", err)
	}
	defer unix.Close(fd)
	tv := unix.Timeval{Sec: 2}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv) // Best effort: the kernel answers at once.
	// struct nlmsghdr (16) + struct inet_diag_req_v2 (56).
	req := make([]byte, 16+56)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(req[8:], 1)
	b := req[16:]
	b[0] = family
	b[1] = unix.IPPROTO_TCP
	ne.PutUint32(b[4:], 0xffffffff) // every state
	id := b[8:]                     // struct inet_diag_sockid
	binary.BigEndian.PutUint16(id[0:], uint16(local.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(remote.Port))
	if family == unix.AF_INET {
		copy(id[4:], local.IP.To4())
		copy(id[20:], remote.IP.To4())
	} else {
		copy(id[4:], local.IP.To16())
		copy(id[20:], remote.IP.To16())
	}
	ne.PutUint32(id[40:], 0xffffffff) // INET_DIAG_NOCOOKIE
	ne.PutUint32(id[44:], 0xffffffff)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, 0, fmt.Errorf("sock_diag: %w", err)
	}
	buf := make([]byte, 8192)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("sock_diag: %w", err)
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil {
		return 0, 0, fmt.Errorf("sock_diag: %w", err)
	}
	for _, m := range msgs {
		switch m.Header.Type {
		case unix.NLMSG_ERROR:
			if len(m.Data) >= 4 {
				if e := -int32(ne.Uint32(m.Data)); e == int32(unix.ENOENT) {
					return 0, 0, errPeerUnknown
				} else if e != 0 {
					return 0, 0, fmt.Errorf("sock_diag: %w", unix.Errno(e))
				}
			}
		case unix.SOCK_DIAG_BY_FAMILY:
			// struct inet_diag_msg: idiag_uid at 64, idiag_inode at 68.
			if len(m.Data) < 72 {
				return 0, 0, errors.New("sock_diag: short answer")
			}
			return int(ne.Uint32(m.Data[64:])), uint64(ne.Uint32(m.Data[68:])), nil
		}
	}
	return 0, 0, errPeerUnknown
}
