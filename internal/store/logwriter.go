package store

import (
	"fmt"
	"os"
	"sync"
)

// LogWriter is a session log capped in size, for slog.NewTextHandler: when
// a write would take the file over its cap, the file becomes path+".1"
// (replacing an older one) and a new file is opened, so the session holds at
// most twice the cap (plus one record larger than the cap, written whole
// into a fresh file rather than cut). Safe for concurrent writes: slog
// handlers write one whole record per Write, from any goroutine.
type LogWriter struct {
	path string
	max  int64

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenLog opens (creating, 0600) the log at path, capped at maxSize bytes
// (0: DefaultLogMaxSize), appending to what a previous writer left.
func OpenLog(path string, maxSize Size) (*LogWriter, error) {
	if maxSize <= 0 {
		maxSize = DefaultLogMaxSize
	}
	w := &LogWriter{path: path, max: int64(maxSize)}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *LogWriter) open() error {
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("session log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close() // Best effort: it failed already.
		return fmt.Errorf("session log: %w", err)
	}
	w.f, w.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when p would take the file over the cap.
func (w *LogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return 0, fmt.Errorf("session log %s: closed", w.path)
	}
	if w.size > 0 && w.size+int64(len(p)) > w.max {
		w.rotate() // Best effort: on failure the line still goes to the old file.
	}
	n, err := w.f.Write(p)
	w.size += int64(n)
	return n, err
}

// rotate renames the full log to path.1 and opens a new one. If either step
// fails the old file stays open: better a log over its cap than lost lines.
func (w *LogWriter) rotate() error {
	if err := os.Rename(w.path, w.path+".1"); err != nil {
		return fmt.Errorf("session log: rotate %s: %w", w.path, err)
	}
	old := w.f
	if err := w.open(); err != nil {
		return err
	}
	old.Close() // Best effort: its lines are written; nothing more goes there.
	return nil
}

// Close closes the file; later writes fail.
func (w *LogWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
