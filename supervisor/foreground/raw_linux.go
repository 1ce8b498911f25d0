package foreground

import (
	"bytes"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The look's system calls are raw (unix.RawSyscall): they never block for
// long (procfs files of this session's few processes, ioctls on the pty
// master), and a raw call does not tell the Go scheduler it entered the
// kernel. A call that does, made while every P was idle — an idle
// supervisor's look, every 30 s — wakes the runtime's sysmon thread, which
// then polls every 20 µs for a millisecond before it sleeps again: most of
// an idle look's context switches and CPU (issue 30's idle fleet;
// specs/detection.md, "What a look costs"). EINTR cannot happen to a raw
// call's thread here: Go's signal handlers are installed with SA_RESTART.

// atFDCWD is AT_FDCWD (-100) as a system call argument.
var atFDCWD = func() uintptr { fd := unix.AT_FDCWD; return uintptr(fd) }()

func rawErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func rawOpen(path string, flags int) (int, error) {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	fd, _, e := unix.RawSyscall6(unix.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(p)),
		uintptr(flags|unix.O_CLOEXEC), 0, 0, 0)
	return int(fd), rawErr(e)
}

func rawRead(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(n), rawErr(e)
}

func rawClose(fd int) {
	unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0) // Best effort: read-only.
}

// rawIoctlInt is an ioctl that fills an int (TIOCGPGRP, TIOCGSID,
// TIOCGPTN: the kernel writes 4 bytes).
func rawIoctlInt(fd int, req uint) (int, error) {
	var v int32
	_, _, e := unix.RawSyscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(&v)))
	return int(v), rawErr(e)
}

// procBufs holds readProc's 4 KiB buffers: a look reads several files of
// a few hundred bytes, each copied out of one.
var procBufs = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}

// readProc reads a small /proc file whole, at most 4 KiB (none of the files
// a look reads is longer).
func readProc(path string) ([]byte, error) {
	fd, err := rawOpen(path, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer rawClose(fd)
	bp := procBufs.Get().(*[]byte)
	defer procBufs.Put(bp)
	buf := *bp
	n := 0
	for n < len(buf) {
		k, err := rawRead(fd, buf[n:])
		if err != nil {
			return nil, err
		}
		if k == 0 {
			break
		}
		n += k
	}
	return bytes.Clone(buf[:n]), nil
}

// readDirNames lists a /proc directory (a process's tasks) with getdents64.
func readDirNames(path string) ([]string, error) {
	fd, err := rawOpen(path, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer rawClose(fd)
	buf := make([]byte, 4096)
	var names []string
	for {
		n, _, e := unix.RawSyscall(unix.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
		if e != 0 {
			return nil, e
		}
		if n == 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// readLink is readlink(2) of a /proc fd link.
func readLink(path string) (string, error) {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return "", err
	}
	buf := make([]byte, 256)
	n, _, e := unix.RawSyscall6(unix.SYS_READLINKAT, atFDCWD, uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if e != 0 {
		return "", e
	}
	return string(buf[:n]), nil
}
