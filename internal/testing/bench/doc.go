//go:build linux

// Package bench is sup's benchmark report (`make bench`, issue 8): every
// figure of specs/performance.md measured in one run, each beside its
// baseline (a bare pty, tmux, a capture-pane poller, exec of the child
// itself) and its goal, printed as a table and written as JSON. The
// measurements live in this package's tests (TestBench), which run at
// smoke sizes unless SUP_BENCH=full; this file's types hold and print the
// results.
package bench
