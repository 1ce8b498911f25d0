//go:build linux

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/internal/safetext"
)

// Every plain-text line sup prints goes through these (specs/security.md,
// "Untrusted text"): the format is sup's, and each string, error or
// Stringer argument may be an agent's words, so it becomes a
// safetext.Field (one line, no control byte, capped). --json goes through
// printJSON, which escapes C1 and bidi controls too.

// outf prints to stdout.
func outf(format string, args ...any) { fmt.Printf(format, view.SafeArgs(args)...) }

// outln prints its arguments and a newline to stdout.
func outln(args ...any) { fmt.Println(view.SafeArgs(args)...) }

// errf prints to stderr.
func errf(format string, args ...any) { fmt.Fprintf(os.Stderr, format, view.SafeArgs(args)...) }

// fprintf prints to w.
func fprintf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, format, view.SafeArgs(args)...) }

// printJSON writes v indented, C1 and bidi controls escaped as \uXXXX.
func printJSON(w io.Writer, v any) error {
	enc := safetext.NewEncoder(w)
	enc.SetIndent("  ")
	return enc.Encode(v)
}
