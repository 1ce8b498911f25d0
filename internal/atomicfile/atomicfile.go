package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options says how Write writes.
type Options struct {
	// Mode is the new file's permission bits; 0 means 0600.
	Mode fs.FileMode
	// Durable fsyncs the data before the rename, so a crash after Write
	// returns leaves the new content (the registry, settings files), not
	// an empty file.
	Durable bool
}

// Write replaces path with data (see the package doc). The error names
// path.
func Write(path string, data []byte, o Options) (err error) {
	mode := o.Mode
	if mode == 0 {
		mode = 0o600
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()           // Best effort: may be closed already.
			os.Remove(tmp.Name()) // Best effort: a temporary file.
		}
	}()
	_, werr := tmp.Write(data)
	var serr error
	if werr == nil {
		serr = tmp.Chmod(mode)
	}
	if o.Durable && werr == nil && serr == nil {
		serr = tmp.Sync()
	}
	if err = errors.Join(werr, serr, tmp.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
