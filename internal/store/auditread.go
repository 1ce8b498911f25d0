package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"golang.org/x/sys/unix"
)

// MaxAuditLine bounds one line ReadAuditSince passes on; a longer one is
// skipped (no writer of sup's writes one: prompts are at most 8 KiB).
const MaxAuditLine = 1 << 20

// ReadAuditSince calls visit with every whole line of the audit files
// written at or after since — audit.jsonl and as many dated files as that
// window needs, newest file first until one last written before since —
// in the order they were appended (oldest file first). The files are opened
// under the audit lock (shared), so a rotation cannot move a line between
// the listing and the opening: each line is seen exactly once. A torn last
// line is skipped. A missing state dir or audit file is empty. visit must
// not keep line.
func ReadAuditSince(stateDir string, since time.Time, visit func(line []byte)) error {
	files, err := openWindow(stateDir, since)
	defer func() {
		for _, f := range files {
			f.Close() // Best effort: read-only.
		}
	}()
	if err != nil {
		return err
	}
	for i := len(files) - 1; i >= 0; i-- {
		if err := readLines(files[i], visit); err != nil {
			return fmt.Errorf("audit: read %s: %w", files[i].Name(), err)
		}
	}
	return nil
}

// openWindow opens the files ReadAuditSince reads, newest first.
func openWindow(dir string, since time.Time) ([]*os.File, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	// Without the lock (a state dir we may not write) a rotation could
	// race the listing; reading is still better than nothing.
	if unlock, err := lockAudit(dir, unix.LOCK_SH); err == nil {
		defer unlock()
	}
	var files []*os.File
	open := func(path string) (last time.Time, ok bool, err error) {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return time.Time{}, false, nil
		}
		if err != nil {
			return time.Time{}, false, fmt.Errorf("audit: open %s: %w", path, err)
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return time.Time{}, false, fmt.Errorf("audit: stat %s: %w", path, err)
		}
		files = append(files, f)
		return fi.ModTime(), true, nil
	}
	if _, _, err := open(paths.Audit(dir)); err != nil {
		return files, err
	}
	dated, err := datedFiles(dir)
	if err != nil {
		return files, err
	}
	for _, d := range dated {
		last, ok, err := open(d.path)
		if err != nil {
			return files, err
		}
		if ok && last.Before(since) {
			// Its newest line is older than the window: so are all the
			// older files. Keep nothing of it.
			files[len(files)-1].Close()
			files = files[:len(files)-1]
			break
		}
	}
	return files, nil
}

// readLines calls visit for each '\n'-terminated line of r up to
// MaxAuditLine; an unterminated last line is a torn write and skipped.
func readLines(r io.Reader, visit func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			if long != nil {
				if len(long)+len(chunk) <= MaxAuditLine {
					visit(bytes.TrimSuffix(append(long, chunk...), []byte("\n")))
				}
				long = nil
				continue
			}
			visit(chunk[:len(chunk)-1])
		case errors.Is(err, bufio.ErrBufferFull):
			if len(long) <= MaxAuditLine {
				long = append(long, chunk...)
			}
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}
