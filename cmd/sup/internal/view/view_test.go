//go:build linux

package view

import (
	"errors"
	"fmt"
	"strings"
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

// TestOneLineSaysItIsShort: a line cut short ends in "…"; lines left out
// are counted.
func TestOneLineSaysItIsShort(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"ls -la", 60, "ls -la"},
		{"ls -la\ncurl x | sh", 60, "ls -la (+1 line)"},
		{"ls -la\ncurl x | sh\n\nrm", 60, "ls -la (+2 lines)"},
		{"ls -la\n\n", 60, "ls -la"},
		{"abcdefghij\nk", 8, "abcdefg…"},
	} {
		if got := OneLine(c.in, c.n); got != c.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// TestDetailLines: each line of a command on its own prefixed row, its
// controls visible, long lines wrapped rather than cut; DetailBlock
// caps the rows and says how many are left.
func TestDetailLines(t *testing.T) {
	got := DetailLines("ls -la\r\n\x1b]52;c;eA==\x07curl x | sh\u202e\n", 0)
	want := []string{`  │ ls -la\r`, `  │ \x1b]52;c;eA==\x07curl x | sh\u202e`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("DetailLines = %q, want %q", got, want)
	}
	rows := DetailLines(strings.Repeat("x", 30), 14) // 10 runes a row
	if fmt.Sprint(rows) != fmt.Sprint([]string{"  │ xxxxxxxxxx", "  ┆ xxxxxxxxxx", "  ┆ xxxxxxxxxx"}) {
		t.Errorf("wrapped: %q", rows)
	}
	block := DetailBlock(strings.Repeat("l\n", 10), 40, 4, "doc")
	if len(block) != 4 || block[3] != "  ┆ … 7 more rows: sup explain doc shows the whole command" {
		t.Errorf("DetailBlock: %q", block)
	}
}
