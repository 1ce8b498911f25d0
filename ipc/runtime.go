package ipc

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"strconv"
	"sync"
	"syscall"

	"github.com/sup-tmux/sup/internal/paths"
	"golang.org/x/sys/unix"
)

// MaxSocketPath is the longest socket path, in bytes, that fits in
// sockaddr_un.sun_path (108 bytes on Linux, 104 on the BSDs and macOS,
// including the terminating NUL). It is internal/paths.MaxSocketPath.
const MaxSocketPath = paths.MaxSocketPath

// RuntimeDir returns the directory that holds the supervisors' sockets:
// $SUP_RUNTIME_DIR if set (tests, unusual setups), else $XDG_RUNTIME_DIR/sup,
// else $TMPDIR/sup-<euid> with TMPDIR defaulting to /tmp. getenv is
// os.Getenv outside tests.
//
// It is the one entry point a client outside sup's module has to the
// runtime dir (check it with CheckRuntimeDir, then list or dial its
// *.sock): internal/paths, which owns the layout, cannot be imported from
// another module. sup's own packages call internal/paths.RuntimeDir.
func RuntimeDir(getenv func(string) string) string { return paths.RuntimeDir(getenv) }

// EnsureRuntimeDir makes dir ready to hold sockets: it creates it (and any
// missing parents) with mode 0700, or checks an existing one as
// CheckRuntimeDir does. `sup start` calls it; the verbs that only read the
// dir call CheckRuntimeDir, which creates nothing.
func EnsureRuntimeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("ipc: create runtime dir: %w", err)
	}
	return CheckRuntimeDir(dir)
}

// CheckRuntimeDir is the one trust check of a runtime dir, made by every
// process before it lists, dials or reads anything there (specs/security.md,
// "Local peers"). An existing dir must be a real directory (not a symlink),
// owned by the effective uid, and not writable by group or others: in a
// shared /tmp another user could otherwise pre-create it and serve sockets
// or plant queue files for us to trust. Read or search bits for
// group/others are merely tightened to 0700, since they are a leak, not an
// attack. A missing dir is no error: nothing listens there, and the caller
// sees no sessions (a dir someone creates after this check holds sockets the
// client's peer check refuses: Dial).
func CheckRuntimeDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("ipc: runtime dir: %w", err)
	}
	euid := os.Geteuid()
	want := fmt.Sprintf("sup trusts only a directory owned by uid %d (you) with mode 0700; "+
		"have its owner or root remove it, or set SUP_RUNTIME_DIR to a directory of yours", euid)
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(dir) // Best effort: only for the message.
		return fmt.Errorf("ipc: runtime dir %s is a symlink (to %q)%s; %s", dir, target, ownerOf(fi), want)
	}
	if !fi.IsDir() {
		return fmt.Errorf("ipc: runtime dir %s is not a directory (mode %v)%s; %s", dir, fi.Mode(), ownerOf(fi), want)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("ipc: runtime dir %s: cannot read its owner", dir)
	}
	perm := fi.Mode().Perm()
	if int(st.Uid) != euid {
		return fmt.Errorf("ipc: runtime dir %s is owned by %s (mode %#o), not by you; %s", dir, userName(st.Uid), perm, want)
	}
	if perm&0o022 != 0 {
		return fmt.Errorf("ipc: runtime dir %s has mode %#o (writable by group or others; owner uid %d); %s",
			dir, perm, st.Uid, want)
	}
	if perm != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("ipc: tighten runtime dir %s from %#o to 0700: %w", dir, perm, err)
		}
	}
	return nil
}

// ownerOf is ", owned by uid N (name)" for a message, or "".
func ownerOf(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return ", owned by " + userName(st.Uid)
	}
	return ""
}

// userName is "uid N (login)", or "uid N" when no account names it.
func userName(uid uint32) string {
	if u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10)); err == nil && u.Username != "" {
		return fmt.Sprintf("uid %d (%s)", uid, u.Username)
	}
	return fmt.Sprintf("uid %d", uid)
}

// SocketPath returns dir/<sessionID>.sock. It fails when the session id is
// not a plain file name or when the path would not fit in sun_path: bind and
// connect would fail later with an unhelpful EINVAL. It is the client's
// and Listen's name for a session's socket in RuntimeDir; sup's own
// packages call internal/paths.Socket, which owns the layout.
func SocketPath(dir, sessionID string) (string, error) {
	p, err := paths.Socket(dir, sessionID)
	if err != nil {
		return "", fmt.Errorf("ipc: %w", err)
	}
	return p, nil
}

func checkSocketPathLen(p string) error {
	if err := paths.CheckSocketLen(p); err != nil {
		return fmt.Errorf("ipc: %w", err)
	}
	return nil
}

// ErrInUse is returned (wrapped) by Listen when a live server already
// answers on the socket path.
var ErrInUse = errors.New("a live server is already listening on this socket")

// listenBacklog is the kernel's queue of not-yet-accepted connections.
const listenBacklog = 128

// Listen listens on the Unix socket path with mode 0600, replacing a stale
// socket left by a dead server (see CleanStale) and refusing, with an error
// wrapping ErrInUse, when a live server answers there. The directory must
// exist (EnsureRuntimeDir). The returned listener unlinks path on Close, but
// only if path is still the socket it created.
//
// The mode is right before anyone can connect, without touching the
// process-wide umask (which other goroutines may be creating files under):
// the socket is built with raw syscalls, fchmod'ed to 0600 before bind (on
// Linux bind creates the file with the socket inode's mode, so it is born
// 0600; the BSDs refuse fchmod on a socket, see newSocket), chmod'ed to 0600 after bind (portable, and fixes a umask that
// removed owner bits), and only then listen(2)ed: until listen, connect(2)
// fails with ECONNREFUSED, so no one connects through a wider mode. The
// whole sequence runs under the `<path>.lock` flock that CleanStale takes, so
// a concurrent cleaner cannot mistake the socket, refused before listen, for
// a stale one and unlink it.
func Listen(path string) (net.Listener, error) {
	if err := checkSocketPathLen(path); err != nil {
		return nil, err
	}
	unlock, err := lockFile(paths.SocketLock(path))
	if err != nil {
		return nil, err
	}
	defer unlock()

	switch st, err := probe(path); {
	case err != nil:
		return nil, err
	case st == sockLive:
		return nil, fmt.Errorf("ipc: listen %s: %w", path, ErrInUse)
	case st == sockStale:
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("ipc: remove stale socket: %w", err)
		}
	}

	fd, err := newSocket()
	if err != nil {
		return nil, fmt.Errorf("ipc: listen %s: %w", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			unix.Close(fd)
		}
	}()
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		return nil, fmt.Errorf("ipc: listen %s: bind: %w", path, err)
	}
	defer func() {
		if !ok {
			os.Remove(path)
		}
	}()
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, fmt.Errorf("ipc: listen %s: chmod 0600: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return nil, fmt.Errorf("ipc: listen %s: %w", path, err)
	}
	if err := unix.Listen(fd, listenBacklog); err != nil {
		return nil, fmt.Errorf("ipc: listen %s: listen: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	ln, err := net.FileListener(f) // dups fd
	f.Close()
	ok = true // fd is closed by f.Close from here on
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("ipc: listen %s: %w", path, err)
	}
	ul, isUnix := ln.(*net.UnixListener)
	if !isUnix {
		ln.Close()
		os.Remove(path)
		return nil, fmt.Errorf("ipc: listen %s: unexpected listener %T", path, ln)
	}
	ul.SetUnlinkOnClose(false) // we unlink ourselves, after checking the inode
	return &unixListener{UnixListener: ul, path: path, dev: uint64(st.Dev), ino: st.Ino}, nil
}

// unixListener unlinks its socket file on Close, but only if the path still
// names the socket it bound: a server that lost its file (someone removed it
// and another server took the name) must not delete the newcomer's socket.
type unixListener struct {
	*net.UnixListener
	path     string
	dev, ino uint64
	once     sync.Once
}

func (l *unixListener) Close() error {
	l.once.Do(func() {
		var st unix.Stat_t
		if unix.Lstat(l.path, &st) == nil && uint64(st.Dev) == l.dev && st.Ino == l.ino {
			os.Remove(l.path)
		}
	})
	return l.UnixListener.Close()
}
