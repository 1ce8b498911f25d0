//go:build linux

package web

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Another user of this host can reach a loopback port, and a browser sends
// the session cookie to every port of 127.0.0.1 (cookies are per host, not
// per port): a page of theirs on another port could collect it. So a
// loopback connection is served only when the kernel says its client
// socket belongs to this server's uid; another uid's is closed before a
// byte is read (specs/web.md, "Other users").

// errPeerUnknown is a loopback client whose socket the kernel does not
// list (gone already, or another network namespace).
var errPeerUnknown = errors.New("the client's socket is not in /proc/net/tcp")

// peerUID is the uid owning the client end of the loopback TCP connection
// c and that socket's inode, read from /proc/net/tcp or tcp6 (the line
// whose local address is the client's and remote address ours).
func peerUID(c net.Conn) (uid int, inode uint64, err error) {
	client, ok1 := c.RemoteAddr().(*net.TCPAddr)
	server, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("not a TCP connection: %v", c.RemoteAddr())
	}
	// The kernel's exact lookup first: the client's socket is AF_INET, or
	// AF_INET6 (a dual-stack socket reaching 127.0.0.1 as ::ffff:…).
	fams := []uint8{unix.AF_INET, unix.AF_INET6}
	if client.IP.To4() == nil {
		fams = fams[1:]
	}
	var derr error
	for _, f := range fams {
		uid, inode, err := diagUID(client, server, f)
		if err == nil {
			return uid, inode, nil
		}
		if !errors.Is(err, errPeerUnknown) {
			derr = err
		}
	}
	if derr == nil {
		return 0, 0, errPeerUnknown
	}
	// No sock_diag (a kernel without inet_diag): every socket's line.
	files := []string{"/proc/net/tcp", "/proc/net/tcp6"}
	if client.IP.To4() == nil {
		files = []string{"/proc/net/tcp6"}
	}
	want := [2]string{procAddr(client), procAddr(server)}
	want6 := [2]string{procAddr6(client), procAddr6(server)}
	for _, name := range files {
		uid, inode, err := findUID(name, want, want6)
		if err == nil || !errors.Is(err, errPeerUnknown) {
			return uid, inode, err
		}
	}
	return 0, 0, errPeerUnknown
}

func findUID(name string, want, want6 [2]string) (uid int, inode uint64, err error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 {
			continue
		}
		local, remote := fs[1], fs[2]
		if (local == want[0] && remote == want[1]) || (local == want6[0] && remote == want6[1]) {
			if uid, err = strconv.Atoi(fs[7]); err != nil {
				return 0, 0, fmt.Errorf("%s: uid %q: %w", name, fs[7], err)
			}
			if inode, err = strconv.ParseUint(fs[9], 10, 64); err != nil {
				return 0, 0, fmt.Errorf("%s: inode %q: %w", name, fs[9], err)
			}
			return uid, inode, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	return 0, 0, errPeerUnknown
}

// procAddr is a as /proc/net/tcp writes an IPv4 address: the 32-bit
// address in host (little-endian) order, hex, ':' the port, hex.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		return ""
	}
	return strings.ToUpper(hex.EncodeToString([]byte{ip[3], ip[2], ip[1], ip[0]})) + fmt.Sprintf(":%04X", a.Port)
}

// procAddr6 is a as /proc/net/tcp6 writes it: four 32-bit words, each in
// host order (an IPv4 address as ::ffff:a.b.c.d).
func procAddr6(a *net.TCPAddr) string {
	ip := a.IP.To16()
	if ip == nil {
		return ""
	}
	var b []byte
	for i := 0; i < 16; i += 4 {
		b = append(b, ip[i+3], ip[i+2], ip[i+1], ip[i])
	}
	return strings.ToUpper(hex.EncodeToString(b)) + fmt.Sprintf(":%04X", a.Port)
}
