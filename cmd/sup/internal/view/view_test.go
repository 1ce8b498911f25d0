//go:build linux

package view

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

type code string

// TestSafeArgs: strings, named string types, errors and Stringers become
// fields; other values, and safe ones, keep their type.
func TestSafeArgs(t *testing.T) {
	got := fmt.Sprintf("%s %s %v %s %d %v %s", SafeArgs([]any{"a\x1b]0;x\x07", code("C\u202e"), errors.New("e\nf"),
		time.Second, 42, true, code("ok")})...)
	if want := `a\x1b]0;x\x07 C\u202e e\nf 1s 42 true ok`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
