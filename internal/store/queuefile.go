package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sup-tmux/sup/internal/atomicfile"
)

// WriteQueueFile replaces path with facts' JSON (an ipc.QueueFacts: ipc
// owns the file's format, which clients read) atomically (a temporary file
// renamed over it, 0600 in a 0700 dir), so a reader sees the old facts or
// the new ones, never half a file. The temporary name does not end in
// .json: readers skip it.
func WriteQueueFile(path string, facts any) error {
	data, err := json.Marshal(facts)
	if err != nil {
		return fmt.Errorf("encode queue facts: %w", err)
	}
	return writeRuntimeFile(path, data, "queue")
}

// WriteStateFile replaces path with data, a session's state as JSON (an
// ipc.State, which its writer already encoded to tell whether it
// changed), the same way WriteQueueFile writes.
func WriteStateFile(path string, data []byte) error {
	return writeRuntimeFile(path, data, "state")
}

// TypeName names a file's type in words, with its article, for errors
// ("a symlink"): fs.FileMode's own String reads "L---------".
func TypeName(m fs.FileMode) string {
	switch t := m.Type(); {
	case t == 0:
		return "a regular file"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symlink"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a special file (" + t.String() + ")"
	}
}

// writeRuntimeFile is the one atomic write of a file a supervisor
// publishes in a subdirectory of the runtime dir; what names the file's
// kind in errors.
func writeRuntimeFile(path string, data []byte, what string) error {
	dir := filepath.Dir(path)
	// Mkdir, not MkdirAll: the runtime dir is EnsureRuntimeDir's to make,
	// with its checks. A supervisor whose runtime dir is gone gets an
	// error here (its socket watch recreates the dir, then the files); it
	// used to recreate the dir itself, and an exiting supervisor brought
	// back the dir a test's cleanup had removed (hundreds left in /tmp
	// by one `make test`).
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s dir: %w", what, err)
	}
	// Never through a symlink put in the dir's place: the file would land
	// in whatever directory it names (the readers refuse one too).
	if fi, err := os.Lstat(dir); err != nil {
		return fmt.Errorf("%s dir: %w", what, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("%s dir %s is %s, not sup's directory: remove it (sup doctor)", what, dir, TypeName(fi.Mode()))
	}
	if err := atomicfile.Write(path, data, atomicfile.Options{}); err != nil {
		return fmt.Errorf("replace %s file: %w", what, err)
	}
	return nil
}
