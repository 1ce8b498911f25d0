package testutil

import (
	"testing"
	"time"
)

// pollInterval is how often WaitUntil and the tmux waits look again: short
// enough not to slow tests, long enough not to spin.
const pollInterval = 20 * time.Millisecond

// WaitUntil calls cond until it returns true, failing the test with
// "timed out after <timeout> waiting for <what>" if that takes longer than
// timeout.
func WaitUntil(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(pollInterval)
	}
}
