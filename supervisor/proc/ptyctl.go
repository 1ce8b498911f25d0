//go:build linux

package proc

import (
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// FDControl runs fn on f's descriptor without f.Fd(), which would switch the
// master back to blocking mode (see Pollable).
func FDControl(f *os.File, fn func(fd int) error) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := sc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// SetSize is pty.Setsize for a pollable master.
func SetSize(master *os.File, ws *pty.Winsize) error {
	return FDControl(master, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: ws.Rows, Col: ws.Cols, Xpixel: ws.X, Ypixel: ws.Y})
	})
}

// Termios reads the pty's terminal settings through the master.
func Termios(master *os.File) (*unix.Termios, error) {
	var t *unix.Termios
	err := FDControl(master, func(fd int) (err error) {
		t, err = unix.IoctlGetTermios(fd, unix.TCGETS)
		return err
	})
	return t, err
}

// Foreground returns the process group in the foreground of master's
// terminal (TIOCGPGRP works on the master side on Linux).
func Foreground(master *os.File) (int, error) {
	var pgrp int
	err := FDControl(master, func(fd int) (err error) {
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	return pgrp, err
}
