package supervisor

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
	"golang.org/x/sys/unix"
)

// socketWatch keeps the control socket reachable when someone deletes it or
// its runtime dir (rm -rf, a tmp cleaner): it recreates the dir (0700) and
// listens anew, leaving the agent alone. When only the queue or state
// directory goes (deleted, or moved away and maybe replaced), the
// session's files are written again, so `sup status-line` does not lose
// a session that had nothing new to say. It waits on inotify, so an idle
// supervisor never wakes up for it (specs/reliability.md).
type socketWatch struct {
	dir, sock string
	srv       *ipc.Server
	ln        net.Listener
	log       *slog.Logger
	relisted  func()   // after the socket was recreated, or the session files' dir went
	f         *os.File // the inotify instance, non-blocking via the poller
	wd        int
	quit      chan struct{} // closed by stop
	done      chan struct{} // closed when run returns
}

const (
	watchDirMask = unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_ONLYDIR
	// watchSettle lets a burst of events (rm -rf deleting file after
	// file) finish before sup recreates anything in a dir being removed.
	watchSettle = 100 * time.Millisecond
)

// watchSocket starts watching; stop must run before the server shuts down,
// since closing the listener unlinks the socket. relisted runs after each
// recreation (the queue file went with a deleted dir).
func watchSocket(dir, sock string, srv *ipc.Server, ln net.Listener, log *slog.Logger, relisted func()) (stop func(), err error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	w := &socketWatch{dir: dir, sock: sock, srv: srv, ln: ln, log: log, relisted: relisted,
		f: os.NewFile(uintptr(fd), "inotify"), quit: make(chan struct{}), done: make(chan struct{})}
	if w.wd, err = unix.InotifyAddWatch(fd, dir, watchDirMask); err != nil {
		w.f.Close()
		return nil, err
	}
	go w.run()
	return func() {
		close(w.quit)
		w.f.Close() // Best effort: ends the blocked read.
		<-w.done
	}, nil
}

func (w *socketWatch) run() {
	defer close(w.done)
	buf := make([]byte, 64*1024)
	for {
		w.f.SetReadDeadline(time.Time{})
		lost := w.lostIn(buf)
		if lost == lostNothing {
			return
		}
		// Settle: read (and ignore) what follows within watchSettle.
		for {
			w.f.SetReadDeadline(time.Now().Add(watchSettle))
			if _, err := w.f.Read(buf); err != nil {
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					return
				}
				break
			}
		}
		if _, err := os.Lstat(w.sock); !errors.Is(err, fs.ErrNotExist) {
			if lost == lostFiles {
				w.log.Info("session_files_rewritten", "dir", w.dir)
				w.relisted()
			}
			continue // only another file went, or the socket is back
		}
		if !w.relisten() {
			return
		}
	}
}

// What an event took, as lostIn reports it.
type lost int

const (
	lostNothing lost = iota // the watch was closed
	lostSocket              // the socket, or the whole dir
	lostFiles               // the queue or state directory
)

// lostIn blocks for events and reports what one may have taken.
func (w *socketWatch) lostIn(buf []byte) lost {
	name := filepath.Base(w.sock)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return lostNothing
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameBytes := bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00")
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0:
				w.log.Warn("runtime_dir_lost", "path", w.dir, "mask", ev.Mask)
				return lostSocket
			case ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0 && string(nameBytes) == name:
				w.log.Warn("socket_lost", "path", w.sock)
				return lostSocket
			case ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0 &&
				(string(nameBytes) == paths.QueueDirName || string(nameBytes) == paths.StateFileDirName):
				w.log.Warn("session_files_lost", "path", filepath.Join(w.dir, string(nameBytes)))
				return lostFiles
			}
		}
	}
}

// relisten recreates the dir and the socket, retrying with a backoff (only
// while the socket is lost) until it works or the watch is closed.
func (w *socketWatch) relisten() bool {
	backoff := 100 * time.Millisecond
	for {
		ln, err := w.listen()
		if err == nil {
			w.ln.Close() // Best effort: the old socket file is gone; Close never unlinks another's.
			w.ln = ln
			go w.srv.Serve(ln) // Returns when the server shuts down.
			w.log.Info("socket_recreated", "path", w.sock)
			w.relisted()
			return true
		}
		w.log.Error("socket_recreate_failed", "path", w.sock, "err", err, "retry_in", backoff.String())
		select {
		case <-time.After(backoff):
		case <-w.quit:
			return false
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

func (w *socketWatch) listen() (net.Listener, error) {
	if err := ipc.EnsureRuntimeDir(w.dir); err != nil {
		return nil, err
	}
	// Through Control, not Fd, which would make the file blocking.
	rc, err := w.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var werr error
	if err := rc.Control(func(fd uintptr) {
		unix.InotifyRmWatch(int(fd), uint32(w.wd)) // Best effort: the old dir's watch is usually gone already.
		w.wd, werr = unix.InotifyAddWatch(int(fd), w.dir, watchDirMask)
	}); err != nil {
		return nil, err
	}
	if werr != nil {
		return nil, werr
	}
	return ipc.Listen(w.sock)
}
