//go:build linux

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sup-tmux/sup/internal/safetext"
)

// Every plain-text line sup prints goes through these (specs/security.md,
// "Untrusted text"): the format is sup's, and each string, error or
// Stringer argument may be an agent's words, so it becomes a
// safetext.Field (one line, no control byte, capped). --json goes through
// printJSON, which escapes C1 and bidi controls too.

// safeArgs is args with every string, error and Stringer made a field. It
// copies args only when an argument changes: safe text costs a scan, no
// allocation (BenchmarkLsRender).
func safeArgs(args []any) []any {
	out := args
	for i, a := range args {
		var safe string
		switch v := a.(type) {
		case string:
			if safe = safetext.Field(v); safe == v {
				continue
			}
		case error:
			safe = safetext.Field(v.Error())
		case fmt.Stringer:
			safe = safetext.Field(v.String())
		default:
			continue
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		out[i] = safe
	}
	return out
}

// outf prints to stdout.
func outf(format string, args ...any) { fmt.Printf(format, safeArgs(args)...) }

// outln prints its arguments and a newline to stdout.
func outln(args ...any) { fmt.Println(safeArgs(args)...) }

// errf prints to stderr.
func errf(format string, args ...any) { fmt.Fprintf(os.Stderr, format, safeArgs(args)...) }

// fprintf prints to w.
func fprintf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, format, safeArgs(args)...) }

// printJSON writes v indented, C1 and bidi controls escaped as \uXXXX.
func printJSON(w io.Writer, v any) error {
	enc := safetext.NewEncoder(w)
	enc.SetIndent("  ")
	return enc.Encode(v)
}
