//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"reflect"

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
			if safe = safetext.Field(v.Error()); safe == v.Error() {
				continue
			}
		case fmt.Stringer:
			// Left as it is when safe: a verb such as %d still sees its type.
			if safe = safetext.Field(v.String()); safe == v.String() {
				continue
			}
		default:
			// A named string type (ipc.Code, a lifecycle word) from the
			// socket is as untrusted as a string.
			rv := reflect.ValueOf(a)
			if rv.Kind() != reflect.String {
				continue
			}
			if safe = safetext.Field(rv.String()); safe == rv.String() {
				continue
			}
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
