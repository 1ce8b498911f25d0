//go:build linux

// Package testutil holds helpers for sup's end-to-end tests: building the
// binaries under test, running a private tmux server, supervising fake
// agents in it (Supervisors), and checking which processes are still alive.
//
// Everything here uses the real thing (real ptys, real processes, real tmux)
// and cleans up after itself through t.Cleanup, also when a test fails.
// Helpers that can fail call t.Fatal, so they must be called from the
// test's own goroutine.
package testutil
