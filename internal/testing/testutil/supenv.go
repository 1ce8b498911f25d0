//go:build linux

package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// SupEnv returns the environment that keeps the supervisors and brokers a
// test runs private: a short runtime dir (socket paths must stay under 108
// bytes; removed at cleanup), config and state dirs under dir, and
// fakeagent first in PATH.
func SupEnv(t testing.TB, bins Bins, dir string) map[string]string {
	t.Helper()
	rt, err := os.MkdirTemp("", "sup-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	return map[string]string{
		"SUP_RUNTIME_DIR": rt,
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
		"PATH":            filepath.Dir(bins.FakeAgent) + ":" + os.Getenv("PATH"),
		// A -race binary otherwise sleeps 1 s at exit: sup, and its guard
		// after it, would outlive the tmux cleanup's grace.
		"GORACE": "atexit_sleep_ms=0",
	}
}
