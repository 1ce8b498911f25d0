//go:build linux

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// replaceFile writes data to a new file beside path (named by tmpPattern,
// as os.CreateTemp takes it; mode 0600) and renames it over path, so a
// reader sees the old file or the new one, never half of one. durable
// fsyncs the data before the rename.
func replaceFile(path, tmpPattern string, data []byte, durable bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), tmpPattern)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // Best effort: gone after the rename.
	_, werr := tmp.Write(data)
	var serr error
	if durable && werr == nil {
		serr = tmp.Sync()
	}
	if err := errors.Join(werr, serr, tmp.Close()); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	return os.Rename(tmp.Name(), path)
}
