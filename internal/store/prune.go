package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
)

// MinIdle protects logs written recently from pruning whatever liveness
// says: a supervisor opens its log before its socket listens, so for a
// moment a live session looks ended.
const MinIdle = 10 * time.Minute

// Removed is one log file pruning removed (or, from PlanPrune, would).
type Removed struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	Why   string `json:"why"` // "older than 30 days" or "logs over 200MB"
}

// sessionLogs are one session's log files (<id>.log and <id>.log.1).
type sessionLogs struct {
	id    string
	files []Removed
	bytes int64
	mtime time.Time // the newest file's
}

// scanLogs groups the state dir's session logs by session.
func scanLogs(stateDir string) ([]*sessionLogs, error) {
	entries, err := os.ReadDir(stateDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list session logs: %w", err)
	}
	byID := map[string]*sessionLogs{}
	for _, e := range entries {
		id, ok := paths.LogSession(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		s := byID[id]
		if s == nil {
			s = &sessionLogs{id: id}
			byID[id] = s
		}
		s.files = append(s.files, Removed{Path: filepath.Join(stateDir, e.Name()), Bytes: fi.Size()})
		s.bytes += fi.Size()
		if fi.ModTime().After(s.mtime) {
			s.mtime = fi.ModTime()
		}
	}
	all := make([]*sessionLogs, 0, len(byID))
	for _, s := range byID {
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mtime.Before(all[j].mtime) })
	return all, nil
}

// PlanPrune says which log files PruneLogs would remove: the ended sessions'
// (live(id) false and nothing written for MinIdle) older than c.KeepDays,
// then the oldest ended ones until all logs together fit c.MaxTotal. Live
// sessions' logs count toward the total but are never chosen. c's zero
// fields take the defaults.
func PlanPrune(stateDir string, c LogConfig, now time.Time, live func(id string) bool) ([]Removed, error) {
	c = Limits{Log: c}.WithDefaults().Log
	all, err := scanLogs(stateDir)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, s := range all {
		total += s.bytes
	}
	cutoff := now.AddDate(0, 0, -c.KeepDays)
	var out []Removed
	for _, s := range all { // oldest first
		if now.Sub(s.mtime) < MinIdle || live(s.id) {
			continue
		}
		why := ""
		switch {
		case s.mtime.Before(cutoff):
			why = fmt.Sprintf("ended, older than %d days", c.KeepDays)
		case total > int64(c.MaxTotal):
			why = fmt.Sprintf("ended, oldest while logs exceed %s", c.MaxTotal)
		default:
			continue
		}
		total -= s.bytes
		for _, f := range s.files {
			f.Why = why
			out = append(out, f)
		}
	}
	return out, nil
}

// PruneLogs removes what PlanPrune chooses and returns what it removed.
// Run by a starting supervisor and `sup doctor --fix`, never by a daemon.
func PruneLogs(stateDir string, c LogConfig, now time.Time, live func(id string) bool) ([]Removed, error) {
	plan, err := PlanPrune(stateDir, c, now, live)
	if err != nil {
		return nil, err
	}
	var done []Removed
	var errs []error
	for _, r := range plan {
		if err := os.Remove(r.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("prune %s: %w", r.Path, err))
			continue
		}
		done = append(done, r)
	}
	return done, errors.Join(errs...)
}

// LogUsage is the disk the state dir's session logs take.
type LogUsage struct {
	Sessions int   `json:"sessions"`
	Bytes    int64 `json:"bytes"`
}

// Logs measures the session logs in stateDir.
func Logs(stateDir string) (LogUsage, error) {
	all, err := scanLogs(stateDir)
	var u LogUsage
	for _, s := range all {
		u.Sessions++
		u.Bytes += s.bytes
	}
	return u, err
}
