//go:build linux

package testutil

import "net"

// LeaveStaleSocket leaves a socket file at path that nobody listens on, as
// a SIGKILLed supervisor leaves its socket behind.
func LeaveStaleSocket(path string) error {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln.Close()
}
