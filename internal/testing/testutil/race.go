//go:build linux && race

package testutil

// raceEnabled reports whether the test binary was built with -race; the
// binaries under test are then built with it too, so that races in sup
// itself fail end-to-end tests.
const raceEnabled = true
