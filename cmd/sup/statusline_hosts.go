//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/broker"
)

// hostRefreshAfter is how old the remote part of the status line may get
// before status-line starts a refresh in the background: the remote part
// is then at most this old, plus the status interval and a host deadline.
const hostRefreshAfter = 10 * time.Second

// remoteSuffix says how old the remote part of a status line is, and
// which hosts failed at their last attempt: " · remote 8s old" or
// " · remote 8s old, gpu unreachable". Nothing without host caches or
// when the line is empty and no host failed.
func remoteSuffix(line string, caches []broker.HostCache, now time.Time) string {
	if len(caches) == 0 {
		return ""
	}
	oldest := now.UnixMilli()
	var failed []string
	for _, c := range caches {
		oldest = min(oldest, c.At)
		if c.FailedAt > c.At {
			failed = append(failed, c.Host+" "+c.Status)
		}
	}
	if line == "" && len(failed) == 0 {
		return ""
	}
	var parts []string
	if oldest > 0 {
		parts = append(parts, "remote "+age(now.Sub(time.UnixMilli(oldest)))+" old")
	}
	parts = append(parts, failed...)
	prefix := " · "
	if line == "" {
		prefix = ""
	}
	return prefix + strings.Join(parts, ", ")
}

// refreshHostCaches starts `sup queue --json` detached (its fan-out writes
// the caches) when the oldest cache is older than hostRefreshAfter and no
// refresh started within that time: status-line itself never waits on
// the network.
func refreshHostCaches(dir string, caches []broker.HostCache, now time.Time) {
	stale := false
	for _, c := range caches {
		if now.Sub(time.UnixMilli(max(c.At, c.FailedAt))) > hostRefreshAfter {
			stale = true
		}
	}
	if !stale {
		return
	}
	stamp := filepath.Join(broker.HostCacheDir(dir), ".refresh")
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < hostRefreshAfter {
		return
	}
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		return // Best effort: the next status-line tries again.
	}
	os.Chtimes(stamp, now, now) // Best effort: an existing file keeps its old mtime otherwise.
	self, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(self, "queue", "--json")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		cmd.Process.Release() // Best effort: it lives on its own.
	}
}
