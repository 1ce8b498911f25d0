//go:build linux

package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// stampFIFO makes a FIFO for readstamp and opens it for reading without
// blocking (read-write, so the open does not wait for the writer).
func stampFIFO(t *testing.T) (string, *bufio.Reader) {
	path := filepath.Join(t.TempDir(), "stamps")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return path, bufio.NewReader(f)
}

// nextStamp reads readstamp's next line: when the child's read returned.
func nextStamp(t *testing.T, r *bufio.Reader) int64 {
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read stamp: %v", err)
	}
	at, err := strconv.ParseInt(strings.Fields(line)[0], 10, 64)
	if err != nil {
		t.Fatalf("stamp %q: %v", line, err)
	}
	return at
}

// latencies sends one key n times with send and returns each send →
// child's read delay in milliseconds.
func latencies(t *testing.T, n int, stamps *bufio.Reader, send func() error) []float64 {
	out := make([]float64, 0, n)
	for i := range n {
		t0 := time.Now().UnixNano()
		if err := send(); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		out = append(out, float64(nextStamp(t, stamps)-t0)/1e6)
	}
	return out
}

// benchInject: socket `inject` → bytes read by the child, against `tmux
// send-keys` into a pane running the same child.
func benchInject(t *testing.T, e *benchEnv, sz sizes) []Figure {
	readstamp := testutil.BuildPackage(t, "./testdata/readstamp")

	fifo, stamps := stampFIFO(t)
	p := e.start(readstamp, "-out", fifo)
	waitOutput(t, p, "readstamp ready")
	p.discard()
	socks, _ := filepath.Glob(filepath.Join(e.rt, "*.sock"))
	if len(socks) != 1 {
		t.Fatalf("sockets: %v", socks)
	}
	c, err := ipc.Dial(socks[0], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key := ipc.InjectParams{Bytes: []byte("a")}
	sup := latencies(t, sz.injects, stamps, func() error {
		return c.Call(context.Background(), ipc.MethodInject, key, nil)
	})
	p.stop()

	tm := testutil.NewTmux(t)
	fifo2, stamps2 := stampFIFO(t)
	pane := tm.NewWindow(nil, readstamp, "-out", fifo2)
	tm.WaitFor(t, pane, "readstamp ready", 10*time.Second)
	tmux := latencies(t, sz.injects, stamps2, func() error {
		_, err := tm.Run("send-keys", "-t", pane, "-l", "a")
		return err
	})

	f := Figure{Section: "1. inject latency (request → read by the child)", Name: "sup inject (socket)", Unit: "ms",
		Goal: "p95 ≤ 2 ms"}
	f.Summarise(sup)
	f.SummariseBaseline("tmux send-keys", tmux)
	f.Judge(f.P95 <= 2)
	return []Figure{f}
}

// waitOutput reads the supervisor's output until it shows want.
func waitOutput(t *testing.T, p *supProc, want string) {
	found := make(chan error, 1)
	go func() {
		var seen strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := p.out.Read(buf)
			seen.Write(buf[:n])
			if strings.Contains(seen.String(), want) {
				found <- nil
				return
			}
			if err != nil {
				found <- fmt.Errorf("output ended without %q: %v; output %q", want, err, seen.String())
				return
			}
		}
	}()
	select {
	case err := <-found:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no %q from the supervisor in 20s", want)
	}
}
