//go:build linux

package broker

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
	"golang.org/x/sys/unix"
)

// ReadQueueFiles returns the sessions that published queue facts in
// <runtimeDir>/queue (ipc.QueueFacts), without dialling any socket: the
// fast path of `sup status-line`. Only Socket and the facts' fields of each
// State are set. A supervisor is alive when its socket is listed in
// runtimeDir and its sup_pid answers kill(pid, 0). A file whose supervisor
// is gone is ignored and removed; a file that does not parse is ignored,
// and removed too if its socket is gone. A missing dir is an empty result.
//
// The queue files are a cache of the supervisors' state (specs/broker.md,
// "The queue files"): what Queue orders from them is what it orders from
// Discover's answers, as of each supervisor's last write.
func ReadQueueFiles(runtimeDir string) ([]Listing, error) {
	sessions, _, err := readQueueDir(runtimeDir, true)
	return sessions, err
}

// readQueueDir is ReadQueueFiles, also returning the session ids with a
// socket in runtimeDir (nil when it has none); clean false removes
// nothing (a read without side effects, for Fleet.Find).
func readQueueDir(runtimeDir string, clean bool) ([]Listing, map[string]bool, error) {
	live, err := listedSockets(runtimeDir)
	if err != nil || len(live) == 0 && !clean {
		return nil, live, err
	}
	d, err := openSubdir(paths.QueueDir(runtimeDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, live, nil
	}
	if err != nil {
		return nil, live, fmt.Errorf("open queue dir: %w (sup doctor says what to do)", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, live, fmt.Errorf("list queue dir: %w", err)
	}
	dirfd := int(d.Fd())
	buf := make([]byte, maxQueueFile)
	var sessions []Listing
	for _, name := range names {
		if s, ok := readLiveQueueFile(runtimeDir, dirfd, name, live, &buf, clean); ok {
			sessions = append(sessions, s)
		}
	}
	return sessions, live, nil
}

// openSubdir opens one of the runtime dir's own subdirectories (queue/,
// state/) to list it: never through a symlink (O_NOFOLLOW) and only a
// directory (O_DIRECTORY), so a link planted in its place cannot point a
// reader's cleanup at another directory's *.json files.
func openSubdir(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ELOOP || err == unix.ENOTDIR {
			if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				err = errors.New("it is a symlink, not sup's directory")
			} else {
				err = errors.New("it is not a directory")
			}
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// listedSockets is the set of session ids with a socket in runtimeDir: one
// listing instead of a stat per file. A missing dir has none.
func listedSockets(runtimeDir string) (map[string]bool, error) {
	d, err := os.Open(runtimeDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open runtime dir: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list runtime dir: %w", err)
	}
	live := make(map[string]bool, len(names))
	for _, n := range names {
		if id, ok := strings.CutSuffix(n, ".sock"); ok {
			live[id] = true
		}
	}
	return live, nil
}

// readLiveQueueFile reads queue file name in dirfd: the session, if its
// supervisor is alive and the file is sound (with clean, the file is
// removed when its supervisor is gone).
func readLiveQueueFile(runtimeDir string, dirfd int, name string, live map[string]bool, buf *[]byte, clean bool) (Listing, bool) {
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || strings.HasPrefix(id, ".") {
		return Listing{}, false // a writer's temporary file, or not ours
	}
	f, err := readQueueFile(dirfd, name, buf)
	alive := live[id] && (err != nil || ipc.PIDAlive(f.SupPID))
	if !alive && clean {
		unix.Unlinkat(dirfd, name, 0) // Best effort: another reader may have won.
	}
	if err != nil || !alive || f.SessionID != id {
		return Listing{}, false
	}
	sock, err := paths.Socket(runtimeDir, id)
	if err != nil {
		return Listing{}, false // a name no supervisor could listen on
	}
	return Listing{Socket: sock, State: f.State()}, true
}

// maxQueueFile bounds a queue file: the facts take a few hundred bytes; a
// bigger file is not one a supervisor wrote.
const maxQueueFile = 16 << 10

// readQueueFile reads dirfd's queue file name (buf is reused).
func readQueueFile(dirfd int, name string, buf *[]byte) (ipc.QueueFacts, error) {
	var f ipc.QueueFacts
	data, err := readRuntimeFile(dirfd, name, buf, maxQueueFile)
	if err != nil {
		return f, fmt.Errorf("queue file %s: %w", name, err)
	}
	return f, json.Unmarshal(data, &f)
}

// readRuntimeFile reads dirfd's file name whole into *buf, growing it up
// to max bytes, with raw openat/read/close: os.ReadFile's path walk, extra
// stat, poller registration and EOF read were most of status-line's time
// at 200 files (BenchmarkStatusLine200). A regular file's read returns
// less than asked only at its end, so a read that does not fill the
// buffer is the whole file.
func readRuntimeFile(dirfd int, name string, buf *[]byte, max int) ([]byte, error) {
	// O_NONBLOCK: a FIFO planted under a file's name would otherwise
	// block the open until someone writes to it (a regular file ignores
	// the flag); its read then fails or is empty, and it is skipped.
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd) // Best effort: read-only.
	b, n := *buf, 0
	for {
		m, err := unix.Read(fd, b[n:])
		if err != nil {
			return nil, err
		}
		if n += m; n < len(b) {
			*buf = b
			return b[:n], nil
		}
		if len(b) >= max {
			return nil, fmt.Errorf("over %d bytes", max)
		}
		b = append(b, make([]byte, min(len(b), max-len(b)))...)
	}
}
