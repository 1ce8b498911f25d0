//go:build linux && race

package testutil

import (
	"os"
	"strings"
)

// raceEnabled reports whether the test binary was built with -race; the
// binaries a test process builds have it too when the process asks
// ([RaceBuilds]), so that races in sup itself fail end-to-end tests.
const raceEnabled = true

// init makes every race-built process a test starts (sup, its hooks,
// fakeagent, and tmux's children, which inherit the server's environment)
// exit at once: by default the race runtime sleeps a second at exit
// (GORACE atexit_sleep_ms=1000, for goroutines still running to report),
// and an end-to-end test starts dozens of such processes, most of that
// second each on the suite's clock (specs/testing.md, "The suite's
// time"). A race is reported when it happens, not at exit: only a report
// still being written by another goroutine as main returns could be cut
// short. A GORACE that sets atexit_sleep_ms already is kept.
func init() {
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0")) // Best effort: without it, only slower.
	}
}
