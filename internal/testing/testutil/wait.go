//go:build linux

package testutil

import (
	"os"
	"testing"
	"time"
)

// pollInterval is how often WaitUntil and the tmux waits look again
// through their first second (fastPolling): short enough not to slow
// tests, long enough not to spin. After it each pause is half as long
// again, up to maxPollInterval.
//
// A look is often a process (a tmux capture costs ~12 ms of CPU, ~20 ms
// with the server's side), and the suite is CPU-bound on CI's 2 cores. At
// 20 ms a wait that ended within its first second had made up to 50
// captures; at 50 ms it makes 20, and a test waits at most 50 ms longer
// (issue 29: tmux was 13 % of a whole run's CPU, most of it captures).
// A window a test must catch is a second or more (a quiet window, a
// stall_after): ten looks or more.
const pollInterval = 50 * time.Millisecond

// fastPolling is how long a wait looks every pollInterval before backing
// off: most waits end within it.
const fastPolling = time.Second

// maxPollInterval bounds a wait's pause between looks: a wait on an
// agent's 30 s start is ~170 captures. Something that happens is still
// seen within 200 ms of it; how fast it happened is a benchmark's figure.
const maxPollInterval = 200 * time.Millisecond

// slowScreenAfter and maxScreenPollInterval pace the tmux waits (each
// look a tmux client) once they have waited long: a wait still going
// after 5 s is on something slow (a real agent starting, seconds under
// load), and looks every 500 ms from then on. An agent start waited on
// for 30 s is ~75 captures, not ~170; the agent tests made ~1,900
// captures a run (specs/testing.md, "Fourth pass").
const (
	slowScreenAfter       = 5 * time.Second
	maxScreenPollInterval = 500 * time.Millisecond
)

// backoff paces a wait's looks: every pollInterval through fastPolling,
// then each pause half as long again up to maxPollInterval — or, for a
// screen wait, up to maxScreenPollInterval after slowScreenAfter.
type backoff struct {
	start  time.Time
	next   time.Duration
	screen bool
}

func (b *backoff) sleep() {
	if b.start.IsZero() {
		b.start, b.next = time.Now(), pollInterval
	}
	time.Sleep(b.next)
	waited := time.Since(b.start)
	if waited >= fastPolling {
		most := maxPollInterval
		if b.screen && waited >= slowScreenAfter {
			most = maxScreenPollInterval
		}
		b.next = min(b.next*3/2, most)
	}
}

// MinWait is the least time a wait for something to happen gives it
// before failing the test: a shorter bound passed to WaitUntil or the tmux
// waits counts as MinWait. Such a bound only says "it did not hang" —
// how fast something happens is a benchmark's claim (specs/testing.md) —
// and on a loaded CI machine 1–5 s bounds failed tests where nothing was
// wrong (a hook is a process the agent starts; a tmux capture is one
// too).
const MinWait = 20 * time.Second

// atLeastMinWait is timeout, or MinWait if that is longer.
func atLeastMinWait(timeout time.Duration) time.Duration {
	return max(timeout, MinWait)
}

// WaitUntil calls cond until it returns true, failing the test with
// "timed out after <timeout> waiting for <what>" if that takes longer than
// timeout (at least MinWait).
func WaitUntil(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout = atLeastMinWait(timeout)
	deadline := time.Now().Add(timeout)
	var pace backoff
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		pace.sleep()
	}
}

// WaitFileQuiet waits until the file at path has not changed size for
// quiet, or for at most limit: the end of a recording that a process (a
// tmux pipe-pane) still appends to.
func WaitFileQuiet(path string, quiet, limit time.Duration) {
	size := func() int64 {
		info, err := os.Stat(path)
		if err != nil {
			return -1
		}
		return info.Size()
	}
	deadline := time.Now().Add(limit)
	last, since := size(), time.Now()
	for time.Now().Before(deadline) && time.Since(since) < quiet {
		time.Sleep(10 * time.Millisecond)
		if s := size(); s != last {
			last, since = s, time.Now()
		}
	}
}

// RemoveLiveDir deletes dir as a user's rm -rf would while supervisors
// still write into it: a file written between os.RemoveAll's listing and
// its rmdir fails it with "directory not empty" (runs 67 and 75), so it
// deletes again until one pass goes through.
func RemoveLiveDir(t testing.TB, dir string) {
	t.Helper()
	WaitUntil(t, 5*time.Second, "deleting "+dir+" under its writers", func() bool { return os.RemoveAll(dir) == nil })
}
