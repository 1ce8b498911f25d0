// Command ptyrelay is the smallest Go pty relay: it runs its arguments
// behind a pty and copies their output to stdout with io.Copy, nothing
// else (no input, no parsing, no resize). sup's in-pane flood benchmark
// (internal/testing/bench) floods through it beside sup and util-linux's
// script(1), to tell what sup's own work costs from what any relay written
// in Go, or in C, costs on the machine (specs/performance.md).
//
//	ptyrelay PROGRAM [ARG...]
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/creack/pty"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ptyrelay PROGRAM [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	ptmx, err := pty.Start(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ptyrelay:", err)
		os.Exit(1)
	}
	io.Copy(os.Stdout, ptmx) // Best effort: EIO once the child's side closes.
	if err := cmd.Wait(); err != nil {
		os.Exit(1)
	}
}
