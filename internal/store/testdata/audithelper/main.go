// Command audithelper is TestAuditSIGKILLDuringRotation's appender: it
// appends {"r":RUN,"n":N} lines to the audit in DIR forever, printing N
// once Append returned (the line is acknowledged), until it is SIGKILLed.
// A program of its own, built without the race detector: the test starts
// 120 of them, and the race-built test binary re-executed cost ~20
// CPU-seconds of the suite; what it tests is the files a killed writer
// leaves, which no race in one goroutine changes.
//
// Usage: audithelper DIR RUN
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sup-tmux/sup/internal/store"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: audithelper DIR RUN")
		os.Exit(2)
	}
	dir := os.Args[1]
	run, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "audithelper: RUN %q is not a number\n", os.Args[2])
		os.Exit(2)
	}
	// 1 KiB files (below MinSize, which only config enforces): a rotation
	// every ~10 lines, so kills often land in one.
	a := store.NewAudit(dir, store.AuditConfig{MaxSize: store.KiB, Keep: store.MaxAuditKeep})
	pad := strings.Repeat("p", 60)
	for n := 0; ; n++ {
		if err := a.Append(struct {
			R   int    `json:"r"`
			N   int    `json:"n"`
			Pad string `json:"pad"`
		}{run, n, pad}); err != nil {
			fmt.Fprintln(os.Stderr, "audithelper:", err)
			os.Exit(2)
		}
		fmt.Println(n)
	}
}
