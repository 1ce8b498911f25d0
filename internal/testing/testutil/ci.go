//go:build linux

package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI: CI is set to anything but
// "", "0" or "false", as CI services and .ci/run do.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "0" && v != "false"
}

// Missing is the one rule for a test whose prerequisite (root, tmux, an
// agent CLI, a corpus) is not there: locally it is skipped, saying what is
// missing; in CI it fails, since CI must run every test and a skip there
// would hide that a whole area went untested.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatal(msg + " (CI must run this test: provide it, do not skip)")
		return // a recording testing.TB may return from Fatal
	}
	t.Skip(msg)
}

// Program finds a program a test needs (.ci/run installs it; install says
// how, e.g. "apt-get install -y neovim"): missing, it is Missing.
func Program(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s not installed (%s)", name, install)
	}
	return path
}

// File is Program for a file a package installs.
func File(t testing.TB, path, install string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, "%s missing (%s)", path, install)
	}
}

// Setpriv is the path of util-linux's setpriv for a test that runs a
// process as another uid: that needs root (CI runs as root) and setpriv
// (.ci/run installs util-linux); without either it is Missing.
func Setpriv(t testing.TB) string {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, "needs root to run a process as another uid (setpriv --reuid); running as uid %d", os.Geteuid())
	}
	return Program(t, "setpriv", "apt-get install -y util-linux")
}
