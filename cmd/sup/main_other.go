//go:build !linux

// Command sup supervises AI coding agents in tmux panes. It runs on Linux
// only: it relies on /proc, SO_PEERCRED, PR_SET_CHILD_SUBREAPER and
// Pdeathsig (specs/reliability.md). Elsewhere it builds into this program,
// which says so, so that the module builds and vets on every platform.
package main

import (
	"fmt"
	"os"
	"runtime"
)

func main() {
	fmt.Fprintf(os.Stderr, "sup runs on Linux only (this is %s/%s)\n", runtime.GOOS, runtime.GOARCH)
	os.Exit(1)
}
