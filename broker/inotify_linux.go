package broker

import (
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inotify wakes Watch when a socket appears in the runtime dir, or the dir
// goes or comes back in its parent.
type inotify struct {
	f  *os.File // non-blocking, so Go's poller reads it and close ends run
	fd int

	mu       sync.Mutex
	dir      string
	dirWD    int // -1: not watched
	parentWD int
}

func newInotify() (*inotify, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return &inotify{f: os.NewFile(uintptr(fd), "inotify"), fd: fd, dirWD: -1, parentWD: -1}, nil
}

func (n *inotify) close() { n.f.Close() }

// watch watches dir's parent for dir's own name (created, deleted,
// renamed: a deleted dir that some process still holds open reports no
// IN_DELETE_SELF until it is closed) and, when dir exists, dir for new
// sockets. It reports whether it could.
func (n *inotify) watch(dir string, exists bool) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.dir = dir
	if n.parentWD < 0 {
		wd, err := unix.InotifyAddWatch(n.fd, filepath.Dir(dir), unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO|unix.IN_ONLYDIR)
		if err != nil {
			return false
		}
		n.parentWD = wd
	}
	if exists && n.dirWD < 0 {
		wd, err := unix.InotifyAddWatch(n.fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_ONLYDIR)
		if err != nil {
			return false
		}
		n.dirWD = wd
	}
	// Created or deleted while we set the watches: go round again.
	return isDir(dir) == exists
}

// run reads events until close, calling wake for each that matters: any
// event on dir, and dir's own name appearing in its parent.
func (n *inotify) run(wake func()) {
	buf := make([]byte, 64*1024)
	for {
		k, err := n.f.Read(buf)
		if err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= k; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameBytes := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			name := string(nameBytes)
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			n.mu.Lock()
			wd := int(ev.Wd)
			ofDir := wd == n.parentWD && name == filepath.Base(n.dir)
			relevant := wd == n.dirWD || ofDir
			selfGone := wd == n.dirWD && ev.Mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0
			nameGone := ofDir && ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0
			if (selfGone || nameGone) && n.dirWD >= 0 {
				if ev.Mask&unix.IN_IGNORED == 0 || wd != n.dirWD {
					// Best effort: the old inode is not the runtime dir any more.
					_, _ = unix.InotifyRmWatch(n.fd, uint32(n.dirWD))
				}
				n.dirWD = -1
			}
			n.mu.Unlock()
			if relevant {
				wake()
			}
		}
	}
}
