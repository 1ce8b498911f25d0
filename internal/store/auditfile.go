package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"golang.org/x/sys/unix"
)

// Audit file names in the state dir.
const (
	AuditFile = paths.AuditFile // the file appended to
	AuditLock = paths.AuditLock // flock'd by every append and rotation; never removed
)

const datedLayout = "20060102T150405"

// Audit appends lines to <stateDir>/audit.jsonl, shared by every process
// of the user, rotating it to a dated file past Limits.MaxSize and keeping
// Limits.Keep dated files (and none older than KeepDays, when set). See the
// package doc for why a SIGKILL at any point loses no acknowledged line and
// duplicates none.
type Audit struct {
	dir string
	cfg AuditConfig
	// Now names rotated files and ages them; time.Now when nil.
	Now func() time.Time

	mu sync.Mutex
	f  *os.File // the active file as last opened; checked against the path at every append
}

// NewAudit returns the appender for stateDir with c's limits (zero fields:
// defaults). Nothing is opened until the first Append.
func NewAudit(stateDir string, c AuditConfig) *Audit {
	return &Audit{dir: stateDir, cfg: Limits{Audit: c}.WithDefaults().Audit}
}

func (a *Audit) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// appendLine writes line (one JSON object, without a newline) plus '\n' as one
// write and fsyncs it before returning: when it returns nil the line is
// on disk exactly once.
func (a *Audit) appendLine(line []byte) error {
	if bytes.IndexByte(line, '\n') >= 0 {
		return errors.New("audit: a line may not contain a newline")
	}
	rec := make([]byte, 0, len(line)+1)
	rec = append(append(rec, line...), '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := os.MkdirAll(a.dir, 0o700); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	unlock, err := lockAudit(a.dir, unix.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	size, err := a.openActive()
	if err != nil {
		return err
	}
	if size > 0 && size+int64(len(rec)) > int64(a.cfg.MaxSize) {
		if err := a.rotate(); err != nil {
			return err
		}
	}
	if _, err := a.f.Write(rec); err != nil {
		a.reset()
		return fmt.Errorf("audit: write %s: %w", a.activePath(), err)
	}
	if err := a.f.Sync(); err != nil {
		a.reset()
		return fmt.Errorf("audit: sync %s: %w", a.activePath(), err)
	}
	return nil
}

func (a *Audit) activePath() string { return paths.Audit(a.dir) }

// openActive makes a.f the file now at the active path (another process may
// have rotated it away since our last append), cuts a torn tail and returns
// the file's size. Called under the lock.
func (a *Audit) openActive() (int64, error) {
	path := a.activePath()
	if a.f != nil {
		var held, named unix.Stat_t
		if unix.Fstat(int(a.f.Fd()), &held) != nil || unix.Stat(path, &named) != nil ||
			held.Dev != named.Dev || held.Ino != named.Ino {
			a.reset()
		}
	}
	if a.f == nil {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
		if err != nil {
			return 0, fmt.Errorf("audit: open %s: %w", path, err)
		}
		a.f = f
	}
	size, err := cutTornTail(a.f)
	if err != nil {
		a.reset()
		return 0, fmt.Errorf("audit: %s: %w", path, err)
	}
	return size, nil
}

// cutTornTail truncates f after its last '\n'. A line without its newline
// is one a writer was killed (or failed, ENOSPC) while writing: its Append
// never returned nil, so removing it loses nothing acknowledged, and the
// next line cannot be glued to it.
func cutTornTail(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	buf := make([]byte, 4096)
	end := size
	for end > 0 {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, fmt.Errorf("read tail: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			end = end - n + int64(i) + 1
			break
		}
		end -= n
	}
	if end == size {
		return size, nil
	}
	if err := f.Truncate(end); err != nil {
		return 0, fmt.Errorf("cut torn line: %w", err)
	}
	return end, nil
}

// rotate renames the active file to a new dated name — the one atomic
// step: before it every line is in audit.jsonl, after it in the dated file,
// never in both — then applies retention. Called under the lock.
func (a *Audit) rotate() error {
	now := a.now().UTC()
	stamp := now.Format(datedLayout)
	var dated string
	for n := 0; ; n++ {
		dated = filepath.Join(a.dir, paths.AuditRotated(stamp, n))
		if _, err := os.Lstat(dated); errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err := os.Rename(a.activePath(), dated); err != nil {
		return fmt.Errorf("audit: rotate %s: %w", a.activePath(), err)
	}
	syncDir(a.dir) // Best effort: only a power loss could undo the rename.
	a.reset()
	if _, err := a.openActive(); err != nil {
		return err
	}
	return a.retain(now)
}

// retain removes dated files beyond cfg.Keep (oldest first) and, with
// KeepDays, those last written before it. Called under the lock.
func (a *Audit) retain(now time.Time) error {
	files, err := datedFiles(a.dir)
	if err != nil {
		return err
	}
	var errs []error
	for i, f := range files { // newest first
		old := a.cfg.KeepDays > 0 && f.mtime.Before(now.AddDate(0, 0, -a.cfg.KeepDays))
		if i >= a.cfg.Keep || old {
			if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("audit: retention: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

func (a *Audit) reset() {
	if a.f != nil {
		a.f.Close() // Best effort: reopened at the next append.
		a.f = nil
	}
}

// Close closes the active file.
func (a *Audit) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reset()
	return nil
}

// datedFile is one rotated audit file.
type datedFile struct {
	path  string
	stamp string
	seq   int
	mtime time.Time
	size  int64
}

// datedFiles lists the rotated audit files, newest first.
func datedFiles(dir string) ([]datedFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit: list %s: %w", dir, err)
	}
	var out []datedFile
	for _, e := range entries {
		stamp, seq, ok := paths.ParseAuditRotated(e.Name())
		if !ok {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, datedFile{path: filepath.Join(dir, e.Name()), stamp: stamp, seq: seq, mtime: fi.ModTime(), size: fi.Size()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].stamp != out[j].stamp {
			return out[i].stamp > out[j].stamp
		}
		return out[i].seq > out[j].seq
	})
	return out, nil
}

// lockAudit takes an flock (LOCK_EX or LOCK_SH) on <dir>/audit.lock.
func lockAudit(dir string, how int) (unlock func(), err error) {
	path := filepath.Join(dir, AuditLock)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: open lock %s: %w", path, err)
	}
	for {
		err = unix.Flock(fd, how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("audit: lock %s: %w", path, err)
	}
	return func() { unix.Close(fd) }, nil // closing releases the lock
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // Best effort.
		d.Close()
	}
}

// AuditSize is the disk the audit trail takes.
type AuditSize struct {
	Files   int   `json:"files"`   // the active file (if any) and the rotated ones
	Rotated int   `json:"rotated"` // dated files
	Bytes   int64 `json:"bytes"`
}

// AuditUsage measures the audit files in stateDir.
func AuditUsage(stateDir string) (AuditSize, error) {
	dated, err := datedFiles(stateDir)
	var u AuditSize
	for _, d := range dated {
		u.Files++
		u.Rotated++
		u.Bytes += d.size
	}
	if fi, err := os.Stat(paths.Audit(stateDir)); err == nil {
		u.Files++
		u.Bytes += fi.Size()
	}
	return u, err
}
