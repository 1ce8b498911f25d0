//go:build linux

package ipc

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnsureRuntimeDir(t *testing.T) {
	base := shortDir(t)
	dir := filepath.Join(base, "a", "b", "sup")
	if err := EnsureRuntimeDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s created with mode %#o, want 0700", d, fi.Mode().Perm())
		}
	}
	// Idempotent.
	if err := EnsureRuntimeDir(dir); err != nil {
		t.Fatal(err)
	}
	// Extra read/search bits are tightened.
	os.Chmod(dir, 0o755)
	if err := EnsureRuntimeDir(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("0755 dir left at %#o, want 0700", fi.Mode().Perm())
	}
	// Group- or world-writable dirs are refused, clearly, and left alone.
	for _, mode := range []os.FileMode{0o777, 0o770, 0o702} {
		os.Chmod(dir, mode)
		err := EnsureRuntimeDir(dir)
		if err == nil {
			t.Fatalf("mode %#o accepted", mode)
		}
		for _, want := range []string{dir, fmt.Sprintf("%#o", mode), "owner uid", "0700", "SUP_RUNTIME_DIR"} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("mode %#o: error %q does not mention %q", mode, err, want)
			}
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != mode {
			t.Fatalf("refused dir changed to %#o", fi.Mode().Perm())
		}
	}
	os.Chmod(dir, 0o700)
	// Not a directory, or a symlink: refused.
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o600)
	if err := EnsureRuntimeDir(file); err == nil {
		t.Fatal("a regular file accepted as the runtime dir")
	}
	link := filepath.Join(base, "link")
	os.Symlink(dir, link)
	if err := EnsureRuntimeDir(link); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("symlink: %v", err)
	}
}

// TestCheckRuntimeDir: the readers' check creates nothing (a missing dir is
// no error: nothing listens there) and refuses what EnsureRuntimeDir refuses.
func TestCheckRuntimeDir(t *testing.T) {
	base := shortDir(t)
	gone := filepath.Join(base, "gone")
	if err := CheckRuntimeDir(gone); err != nil {
		t.Fatalf("missing dir: %v", err)
	}
	if _, err := os.Lstat(gone); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("CheckRuntimeDir created %s (%v)", gone, err)
	}
	dir := filepath.Join(base, "rt")
	os.Mkdir(dir, 0o700)
	if err := CheckRuntimeDir(dir); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	if err := CheckRuntimeDir(dir); err == nil || !strings.Contains(err.Error(), "mode 0777") {
		t.Fatalf("0777 dir: %v", err)
	}
	os.Chmod(dir, 0o700)
	link := filepath.Join(base, "link")
	os.Symlink(dir, link)
	err := CheckRuntimeDir(link)
	for _, want := range []string{link, "symlink", dir, "owned by uid", "SUP_RUNTIME_DIR"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("symlink: error %v does not say %q", err, want)
		}
	}
}

func TestEnsureRuntimeDirOtherOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a directory owned by another uid")
	}
	dir := filepath.Join(shortDir(t), "theirs")
	os.Mkdir(dir, 0o700)
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err := EnsureRuntimeDir(dir)
	for _, want := range []string{dir, "owned by uid 65534", "mode 0700", "not by you", "have its owner or root remove it"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("dir of uid 65534: error %v does not say %q", err, want)
		}
	}
}

func TestSocketPath(t *testing.T) {
	p, err := SocketPath("/run/user/1000/sup", "abc123")
	if err != nil || p != "/run/user/1000/sup/abc123.sock" {
		t.Fatalf("%q %v", p, err)
	}
	for _, id := range []string{"", ".", "..", "a/b", "a\x00b"} {
		if _, err := SocketPath("/tmp", id); err == nil {
			t.Errorf("session id %q accepted", id)
		}
	}
	long := "/tmp/" + strings.Repeat("d", 90)
	_, err = SocketPath(long, "session-id-0123")
	if err == nil || !strings.HasPrefix(err.Error(), "ipc: socket path") || !strings.Contains(err.Error(), "116 bytes") {
		t.Fatalf("long path: %v", err)
	}
	// 107 bytes is the longest that works, and it does work.
	dir := shortDir(t)
	id := strings.Repeat("s", MaxSocketPath-len(dir)-len("/.sock"))
	p, err = SocketPath(dir, id)
	if err != nil || len(p) != MaxSocketPath {
		t.Fatalf("%d-byte path: %v", len(p), err)
	}
	ln, err := Listen(p)
	if err != nil {
		t.Fatalf("Listen on a %d-byte path: %v", len(p), err)
	}
	ln.Close()
	if _, err := SocketPath(dir, id+"s"); err == nil {
		t.Fatal("108-byte path accepted")
	}
}

func TestListenMode(t *testing.T) {
	dir := shortDir(t)
	path := filepath.Join(dir, "m.sock")
	// A permissive umask must not leak into the socket's mode.
	old := umask(0)
	ln, err := Listen(path)
	umask(old)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want socket 0600", fi.Mode())
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file left behind: %v", err)
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Close unlinks the socket.
	ln.Close()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after Close: %v", err)
	}
}

// TestListenCloseSparesReplacement: a listener whose file was replaced by
// another server's does not delete the newcomer's socket on Close.
func TestListenCloseSparesReplacement(t *testing.T) {
	path := filepath.Join(shortDir(t), "r.sock")
	first, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	second, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	first.Close()
	if _, err := net.Dial("unix", path); err != nil {
		t.Fatalf("second server's socket gone after the first closed: %v", err)
	}
}
