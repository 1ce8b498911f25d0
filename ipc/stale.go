package ipc

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"golang.org/x/sys/unix"
)

// sockState is what probe found at a socket path.
type sockState int

const (
	sockAbsent sockState = iota // nothing there
	sockLive                    // a server accepted (or was too busy to)
	sockStale                   // a socket file nobody listens on
)

// probeTimeout bounds the liveness connect; a Unix connect to a live
// listener completes at once, so this only matters for a wedged server.
const probeTimeout = time.Second

// probe connects to path to learn whether a server lives there. It never
// removes anything. A path that exists but is not a socket is an error: it
// is someone's file, and no caller may delete it.
func probe(path string) (sockState, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return sockAbsent, nil
	}
	if err != nil {
		return 0, fmt.Errorf("ipc: stat %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return 0, fmt.Errorf("ipc: %s exists and is not a socket (mode %v); not touching it", path, fi.Mode())
	}
	c, err := net.DialTimeout("unix", path, probeTimeout)
	if err == nil {
		c.Close()
		return sockLive, nil
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return sockStale, nil
	case errors.Is(err, syscall.ENOENT):
		// Removed between Lstat and connect, or (tmux's case) a socket
		// file whose listener is gone in a way that reports ENOENT.
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSocket != 0 {
			return sockStale, nil
		}
		return sockAbsent, nil
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, os.ErrDeadlineExceeded):
		return sockLive, nil // backlog full: alive, just busy
	}
	return 0, fmt.Errorf("ipc: probe %s: %w", path, err)
}

// CleanStale removes the socket at path if no server listens on it, and
// reports whether it did. It follows tmux's recipe so that several cleaners
// (the broker, clients, a starting supervisor) and a starting server never
// race each other into deleting a live socket:
//
//  1. connect; if a server answers, it is live: never remove it;
//  2. on ECONNREFUSED (or ENOENT for a path that still exists), take an
//     exclusive flock on <path>.lock — Listen holds it from bind to listen,
//     the only moment a live socket refuses connections;
//  3. connect once more under the lock; still refused: unlink the socket,
//     then the lock file.
//
// A path that exists but is not a socket is an error and is left alone. A
// missing path is not an error (removed is false).
func CleanStale(path string) (removed bool, err error) {
	st, err := probe(path)
	if err != nil || st != sockStale {
		return false, err
	}
	unlock, err := lockFile(paths.SocketLock(path))
	if err != nil {
		return false, err
	}
	defer unlock()
	st, err = probe(path)
	if err != nil || st != sockStale {
		return false, err
	}
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("ipc: remove stale socket: %w", err)
	}
	// The dead supervisor's queue and state files go with its socket (status-line
	// would drop it too, but only when it next runs).
	if id, ok := strings.CutSuffix(filepath.Base(path), ".sock"); ok {
		os.Remove(paths.QueueFile(filepath.Dir(path), id)) // Best effort: it may never have been written.
		os.Remove(paths.StateFile(filepath.Dir(path), id)) // Best effort: likewise.
	}
	return true, nil
}

// lockFile takes an exclusive flock on path, creating it (0600). The unlock
// function removes the file, then releases the lock. Removing a lock file
// others may be waiting on is safe only because every locker checks, once it
// holds the lock, that path still names the file it locked, and starts over
// otherwise.
func lockFile(path string) (unlock func(), err error) {
	for range 100 {
		fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("ipc: open lock %s: %w", path, err)
		}
		if err := flockRetry(fd); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("ipc: lock %s: %w", path, err)
		}
		var held, named unix.Stat_t
		if unix.Fstat(fd, &held) == nil && unix.Lstat(path, &named) == nil &&
			held.Dev == named.Dev && held.Ino == named.Ino {
			return func() {
				unix.Unlink(path)
				unix.Flock(fd, unix.LOCK_UN)
				unix.Close(fd)
			}, nil
		}
		unix.Close(fd) // the file was removed (or replaced) while we waited
	}
	return nil, fmt.Errorf("ipc: lock %s: the lock file keeps changing", path)
}

func flockRetry(fd int) error {
	for {
		err := unix.Flock(fd, unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

// SweepStale applies CleanStale to every *.sock in dir and returns the paths
// it removed. A supervisor calls it as it starts, so sockets left by
// supervisors that were killed do not pile up even when no broker runs.
func SweepStale(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.sock"))
	if err != nil {
		return nil, fmt.Errorf("sweep stale sockets: %w", err)
	}
	var removed []string
	var errs []error
	for _, p := range paths {
		ok, err := CleanStale(p)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			removed = append(removed, p)
		}
	}
	return removed, errors.Join(errs...)
}
