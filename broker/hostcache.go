//go:build linux

package broker

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sup-tmux/sup/internal/atomicfile"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
)

// HostCache is what the broker last learnt of a remote host, kept in
// <runtime dir>/hosts/<name>.json so that `sup status-line` reads the
// remote part as a local file, saying how old it is.
type HostCache struct {
	Host     string           `json:"host"`
	At       int64            `json:"at"` // unix ms the sessions were learnt; 0: never
	Sessions []ipc.QueueFacts `json:"sessions"`
	// The last failure, when the newest attempt failed (the sessions are
	// then the last ones known, from At).
	Status   string `json:"status,omitempty"`
	Reason   string `json:"reason,omitempty"`
	FailedAt int64  `json:"failed_at,omitempty"`
}

// HostCacheDir is <runtimeDir>/hosts (internal/paths.HostCacheDir).
func HostCacheDir(runtimeDir string) string { return paths.HostCacheDir(runtimeDir) }

// WriteHostCache records r (a remote host's answer or failure) at now:
// an answer replaces the sessions, a failure keeps the last ones known
// and says why the newest attempt failed. Written atomically
// (atomicfile), 0600 in a 0700 dir, like the queue files.
func WriteHostCache(runtimeDir string, r HostResult, now time.Time) error {
	if r.Local {
		return nil
	}
	dir := HostCacheDir(runtimeDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("host cache: %w", err)
	}
	path := paths.HostCache(runtimeDir, r.Host)
	c := HostCache{Host: r.Host, Sessions: []ipc.QueueFacts{}}
	if r.Err != nil {
		if old, err := readHostCache(path); err == nil {
			c = old
		}
		c.Status, c.Reason, c.FailedAt = HostFailed, r.Err.Error(), now.UnixMilli()
		var he *HostError
		if errors.As(r.Err, &he) {
			c.Status, c.Reason = he.Status, he.Reason
		}
	} else {
		c.At = now.UnixMilli()
		for _, s := range r.Sessions {
			c.Sessions = append(c.Sessions, s.State.QueueFacts())
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("host cache: %w", err)
	}
	if err := atomicfile.Write(path, b, atomicfile.Options{Mode: 0o600}); err != nil {
		return fmt.Errorf("host cache: %w", err)
	}
	return nil
}

func readHostCache(path string) (HostCache, error) {
	var c HostCache
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}

// ReadHostCaches reads every host cache in runtimeDir, sorted by host: no
// network, for the status line. A missing dir is none.
func ReadHostCaches(runtimeDir string) ([]HostCache, error) {
	dir := HostCacheDir(runtimeDir)
	names, err := readDirNames(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("host cache: %w", err)
	}
	var out []HostCache
	for _, n := range names {
		if !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, ".") {
			continue
		}
		if c, err := readHostCache(filepath.Join(dir, n)); err == nil {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out, nil
}

// RemoveHostCachesExcept removes the caches of hosts no longer configured.
func RemoveHostCachesExcept(runtimeDir string, hosts []Host) {
	keep := map[string]bool{}
	for _, h := range hosts {
		keep[h.Name+".json"] = true
	}
	names, _ := readDirNames(HostCacheDir(runtimeDir)) // Best effort: none is fine.
	for _, n := range names {
		if strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") && !keep[n] {
			os.Remove(filepath.Join(HostCacheDir(runtimeDir), n)) // Best effort.
		}
	}
}

// CachedSessions are the sessions of the caches, each with its host.
func CachedSessions(caches []HostCache) []Listing {
	var out []Listing
	for _, c := range caches {
		for _, f := range c.Sessions {
			out = append(out, Listing{State: f.State(), Host: c.Host})
		}
	}
	return out
}

func readDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
