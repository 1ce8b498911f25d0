//go:build linux

package broker

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
)

// hostRefreshAfter is how old the remote part of the status line may get
// before status-line starts a refresh in the background: the remote part
// is then at most this old, plus the status interval and a host deadline.
const hostRefreshAfter = 10 * time.Second

// RefreshHostCaches starts `sup queue --json` detached (its fan-out writes
// the caches) when the oldest cache is older than hostRefreshAfter and no
// refresh started within that time: status-line itself never waits on
// the network.
func RefreshHostCaches(dir string, caches []HostCache, now time.Time) {
	stale := false
	for _, c := range caches {
		if now.Sub(time.UnixMilli(max(c.At, c.FailedAt))) > hostRefreshAfter {
			stale = true
		}
	}
	if !stale {
		return
	}
	stamp := paths.HostCacheRefresh(dir)
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
