//go:build linux

package supervisor

import (
	"slices"
	"testing"
)

// TestTeardownReverseOrder: Close undoes the steps last first, and only
// once.
func TestTeardownReverseOrder(t *testing.T) {
	var got []string
	var td teardown
	for _, name := range []string{"log", "guard", "socket", "watch", "queue file"} {
		td.Add(func() { got = append(got, name) })
	}
	td.Close()
	td.Close()
	if want := []string{"queue file", "watch", "socket", "guard", "log"}; !slices.Equal(got, want) {
		t.Fatalf("teardown ran %q, want %q", got, want)
	}
}
