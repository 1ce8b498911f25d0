//go:build linux

package testutil

import (
	"os"
	"testing"
)

// TestMain removes the binaries this process built, as every package using
// BuildPackage should.
func TestMain(m *testing.M) {
	code := m.Run()
	RemoveBuilds()
	os.Exit(code)
}
