// Command readstamp is the child of sup's inject-latency benchmark
// (internal/testing/bench): it puts its terminal in raw mode and, for every read of
// stdin, writes "<unix nanoseconds> <bytes read>\n" to the file (a FIFO)
// named by -out, stamped the moment the read returned. The benchmark sends
// a key through sup's socket or `tmux send-keys` and subtracts its send
// time from the stamp: the latency to the child.
//
//	readstamp -out FIFO
//
// It exits 0 at stdin EOF or when it reads 'q'.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"time"

	"golang.org/x/term"
)

func main() {
	out := flag.String("out", "", "`file` (a FIFO) to write one stamp line per read to")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: readstamp -out FIFO")
		os.Exit(2)
	}
	if st, err := term.MakeRaw(int(os.Stdin.Fd())); err == nil {
		defer term.Restore(int(os.Stdin.Fd()), st)
	}
	f, err := os.OpenFile(*out, os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "readstamp: %v\n", err)
		os.Exit(1)
	}
	fmt.Print("readstamp ready\r\n")
	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		at := time.Now().UnixNano()
		if n > 0 {
			fmt.Fprintf(f, "%d %d\n", at, n)
			if bytes.IndexByte(buf[:n], 'q') >= 0 {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
