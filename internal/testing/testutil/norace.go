//go:build linux && !race

package testutil

const raceEnabled = false
