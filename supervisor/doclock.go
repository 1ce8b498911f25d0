//go:build linux

package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"golang.org/x/sys/unix"
)

// DocHolder is what the supervisor holding a document's lock writes into
// the lock file, so that a second `sup start` can name it.
type DocHolder struct {
	SessionID string `json:"session_id"`
	Name      string `json:"name"`
	Document  string `json:"document"`
	SupPID    int    `json:"sup_pid"`
	TmuxPane  string `json:"tmux_pane"`
}

// DuplicateError is a `sup start` refused because another supervisor runs
// for the same document. Document is the path this start was given; the
// holder's may differ (a symlink, a hard link, the document renamed).
type DuplicateError struct {
	Document string
	Holder   DocHolder
}

func (e *DuplicateError) Error() string {
	h := e.Holder
	pane := h.TmuxPane
	if pane == "" {
		pane = "none (not in tmux)"
	}
	doc := h.Document
	if e.Document != "" && e.Document != h.Document {
		doc = fmt.Sprintf("%s (the same file as %s)", e.Document, h.Document)
	}
	return fmt.Sprintf("%s is already supervised by session %s (name %s, pane %s, sup pid %d); "+
		"go to it with `sup pick`, stop it with `sup stop %s`, or pass --duplicate to start a second supervisor anyway",
		doc, h.SessionID, h.Name, pane, h.SupPID, h.SessionID)
}

// docKeys are the two names of a document's lock: its file's identity
// (device and inode, after following symlinks), which a symlink, a hard
// link and a rename share, and its resolved path, which an editor's
// atomic save (a new inode renamed over the old) keeps. A start holds
// both, so either one held refuses it (specs/supervisor.md, "One
// supervisor per document").
func docKeys(document string) ([]string, error) {
	var st unix.Stat_t
	if err := unix.Stat(document, &st); err != nil {
		return nil, fmt.Errorf("document lock: %s: %w", document, err)
	}
	resolved, err := filepath.EvalSymlinks(document)
	if err != nil {
		return nil, fmt.Errorf("document lock: %s: %w", document, err)
	}
	return []string{
		fmt.Sprintf("inode:%d:%d", st.Dev, st.Ino),
		"path:" + resolved,
	}, nil
}

// claimDocument takes document's locks (docKeys) for the life of this
// process and writes h into them; release undoes it. A held lock is a
// *DuplicateError naming the holder.
func claimDocument(runtimeDir string, h DocHolder) (release func(), err error) {
	keys, err := docKeys(h.Document)
	if err != nil {
		return nil, err
	}
	var releases []func()
	releaseAll := func() {
		for _, r := range releases {
			r()
		}
	}
	for _, key := range keys {
		r, err := claimLock(paths.DocLock(runtimeDir, key), h)
		if err != nil {
			releaseAll()
			return nil, err
		}
		releases = append(releases, r)
	}
	return releaseAll, nil
}

// claimLock takes the lock file at path for the life of this process and
// writes h into it. The lock is an flock: the kernel drops it when the
// supervisor dies however it dies (kill -9 included), so a crashed
// supervisor never blocks the next start, and two starts racing each other
// cannot both win. The descriptor is close-on-exec: the agent never holds
// it. A held lock is a *DuplicateError naming the holder. release undoes
// it (and removes the file while still holding the lock, so a waiting
// reader never reads a stale holder).
func claimLock(path string, h DocHolder) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("document lock: %w", err)
	}
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("document lock: %w", err)
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			// The holder may not have written its facts yet: it takes
			// the lock first and writes right after, so wait a moment.
			holder, rerr := readHolder(path)
			if rerr != nil && attempt < 20 {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if rerr != nil {
				holder = DocHolder{SessionID: "?", Name: "?", Document: h.Document}
			}
			return nil, &DuplicateError{Document: h.Document, Holder: holder}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("document lock %s: %w", path, err)
		}
		// A releasing holder unlinks the file under its lock: ours may
		// be that unlinked inode, so check it is still the one at path.
		var st, fst unix.Stat_t
		if unix.Stat(path, &st) != nil || unix.Fstat(int(f.Fd()), &fst) != nil || st.Ino != fst.Ino {
			f.Close()
			continue
		}
		data, _ := json.Marshal(h) // Cannot fail: plain strings and ints.
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, fmt.Errorf("document lock: %w", err)
		}
		if _, err := f.WriteAt(data, 0); err != nil {
			f.Close()
			return nil, fmt.Errorf("document lock: %w", err)
		}
		return func() {
			os.Remove(path) // Best effort: the next start recreates it.
			f.Close()
		}, nil
	}
}

func readHolder(path string) (DocHolder, error) {
	var h DocHolder
	data, err := os.ReadFile(path)
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return h, err
	}
	if h.SessionID == "" {
		return h, errors.New("empty holder")
	}
	return h, nil
}
