//go:build linux

package store

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
)

// TestWriteQueueFile: the file is created with its dir (0700), is
// 0600, is replaced whole, and leaves no temporary file behind.
func TestWriteQueueFile(t *testing.T) {
	rt := t.TempDir()
	path := paths.QueueFile(rt, "s1")
	for _, f := range []ipc.QueueFacts{
		{SessionID: "s1", Name: "a", Activity: "busy", SupPID: 7, Lifecycle: "running"},
		{SessionID: "s1", Name: "a", Activity: "ready", Reason: "stopped", WaitingSince: 5, SupPID: 7, Lifecycle: "running"},
	} {
		if err := WriteQueueFile(path, f); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var got ipc.QueueFacts
		if err := json.Unmarshal(data, &got); err != nil || got != f {
			t.Fatalf("file holds %+v (%v), want %+v", got, err, f)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file: %v, %v; want mode 0600", fi, err)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir: %v, %v; want mode 0700", fi, err)
	}
	// ReadDir, not Glob: "*" would not match a leftover dot-file.
	if entries, err := os.ReadDir(filepath.Dir(path)); err != nil || len(entries) != 1 {
		t.Fatalf("queue dir holds %v (%v), want only the file", entries, err)
	}
}

// TestWriteRuntimeFileRefusesSymlinkedDir: a symlink in the queue or state
// dir's place is refused, and nothing is written where it points.
func TestWriteRuntimeFileRefusesSymlinkedDir(t *testing.T) {
	rt := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, paths.StateFileDir(rt)); err != nil {
		t.Fatal(err)
	}
	err := WriteStateFile(paths.StateFile(rt, "s1"), []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "is a symlink, not sup's directory") {
		t.Fatalf("write through a symlinked state dir: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("the symlink's target got %v", entries)
	}
}

// A session file is never written where the runtime dir itself is gone:
// making it is EnsureRuntimeDir's (its mode and owner checks), and a
// supervisor on its way out must not bring back a removed dir.
func TestWriteRuntimeFileLeavesAMissingRuntimeDirAlone(t *testing.T) {
	rt := filepath.Join(t.TempDir(), "gone")
	if err := WriteQueueFile(paths.QueueFile(rt, "s1"), map[string]string{"session_id": "s1"}); err == nil {
		t.Fatal("wrote a queue file under a runtime dir that does not exist")
	}
	if err := WriteStateFile(paths.StateFile(rt, "s1"), []byte(`{}`)); err == nil {
		t.Fatal("wrote a state file under a runtime dir that does not exist")
	}
	if _, err := os.Stat(rt); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the runtime dir came back: %v", err)
	}
	// With the runtime dir there, the subdirectory is made as needed.
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteStateFile(paths.StateFile(rt, "s1"), []byte(`{}`)); err != nil {
		t.Fatalf("write with the runtime dir present: %v", err)
	}
}
