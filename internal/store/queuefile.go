package store

import (
	"encoding/json"
	"fmt"
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
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("queue dir: %w", err)
	}
	if err := atomicfile.Write(path, data, atomicfile.Options{}); err != nil {
		return fmt.Errorf("replace queue file: %w", err)
	}
	return nil
}
