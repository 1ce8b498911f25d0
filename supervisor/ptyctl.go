package supervisor

import (
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// fdControl runs fn on f's descriptor without f.Fd(), which would switch the
// master back to blocking mode (see pollable).
func fdControl(f *os.File, fn func(fd int) error) error {
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

// setSize is pty.Setsize for a pollable master.
func setSize(master *os.File, ws *pty.Winsize) error {
	return fdControl(master, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: ws.Rows, Col: ws.Cols, Xpixel: ws.X, Ypixel: ws.Y})
	})
}

// termios reads the pty's terminal settings through the master.
func termios(master *os.File) (*unix.Termios, error) {
	var t *unix.Termios
	err := fdControl(master, func(fd int) (err error) {
		t, err = unix.IoctlGetTermios(fd, unix.TCGETS)
		return err
	})
	return t, err
}
