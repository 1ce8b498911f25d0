//go:build linux

// Package testutil holds helpers for sup's end-to-end tests: building the
// binaries under test, running a private tmux server, supervising fake
// agents in it (Rig, the one end-to-end rig), and checking which processes
// are still alive. It imports nothing of sup's but shellquote, since ipc's
// own tests use it: the calls a test makes to a supervisor are in
// internal/testing/ipctest.
//
// Everything here uses the real thing (real ptys, real processes, real tmux)
// and cleans up after itself through t.Cleanup, also when a test fails.
// Helpers that can fail call t.Fatal, so they must be called from the
// test's own goroutine.
package testutil
