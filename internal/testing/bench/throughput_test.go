//go:build linux

package bench

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// floodDone is what fakeagent prints after its flood.
const floodDone = "fakeagent flood done"

// floodArgs: -raw because TUIs turn output processing off (cooked ONLCR
// caps a pty near 64 MB/s).
func floodArgs(fake string, n int) []string {
	return []string{fake, "-raw", "-flood", strconv.Itoa(n)}
}

// The bare and sup floods are timed from the first output byte to the
// last, so neither start-up counts; tmux's from the shell before the
// child's exec (a millisecond or two).

// floodBare times fakeagent's flood through a bare pty copy: what sup's
// pump does minus everything else, read the pty master and write the bytes
// to a pipe (sup's stdout: the pane), read at the other end as sup's is.
func floodBare(t *testing.T, fake string, n int) time.Duration {
	argv := floodArgs(fake, n)
	cmd := exec.Command(argv[0], argv[1:]...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() {
		defer pw.Close()
		buf := make([]byte, 32<<10) // the pump's read size
		for {
			n, err := ptmx.Read(buf)
			pw.Write(buf[:n]) // Best effort, as the pump's pane write.
			if err != nil {
				return // EIO: the child is gone
			}
		}
	}()
	start := firstByte(t, pr)
	if err := readUntil(pr, []byte(floodDone)); err != nil {
		t.Fatalf("bare flood: %v", err)
	}
	d := time.Since(start)
	io.Copy(io.Discard, pr) // Best effort: the rest, until the child is gone.
	if err := cmd.Wait(); err != nil {
		t.Fatalf("fakeagent -flood: %v", err)
	}
	return d
}

// floodSup times the flood through `sup start` (screen model on), reading
// sup's output as a pane would, and returns sup's peak RSS in kB.
func floodSup(t *testing.T, e *benchEnv, fake string, n int) (time.Duration, int) {
	p := e.start(floodArgs(fake, n)...)
	start := firstByte(t, p.out)
	if err := readUntil(p.out, []byte(floodDone)); err != nil {
		t.Fatalf("flood through sup: %v", err)
	}
	d := time.Since(start)
	hwm, err := StatusKB(p.pid(), "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	p.discard()
	p.stop()
	return d, hwm
}

// firstByte waits for r's first byte (dropping it) and says when it came.
func firstByte(t *testing.T, r io.Reader) time.Time {
	var b [1]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		t.Fatalf("no output: %v", err)
	}
	return time.Now()
}

// readUntil reads r until marker has gone by.
func readUntil(r io.Reader, marker []byte) error {
	buf := make([]byte, 64<<10)
	keep := 0 // bytes of the previous read kept in front, for a marker cut in two
	for {
		n, err := r.Read(buf[keep:])
		if bytes.Contains(buf[:keep+n], marker) {
			return nil
		}
		if err != nil {
			return err
		}
		tail := min(keep+n, len(marker))
		copy(buf, buf[keep+n-tail:keep+n])
		keep = tail
	}
}

// floodTmux times the flood in a pane of a private tmux server (no client
// attached: tmux parses it into its grid), until the pane's command ends.
func floodTmux(t *testing.T, tm *testutil.Tmux, fake string, n int) time.Duration {
	var words []string
	for _, w := range floodArgs(fake, n) {
		words = append(words, shellquote.Quote(w))
	}
	signal := "tmux -L " + tm.Name + " wait-for -S "
	pane := tm.NewWindow(nil, "sh", "-c", signal+"started; "+strings.Join(words, " ")+"; "+signal+"flooded")
	if _, err := tm.Run("wait-for", "started"); err != nil {
		t.Fatalf("tmux wait-for: %v", err)
	}
	start := time.Now()
	// Not tm.Run, whose 10 s bound a 200 MB flood through tmux can pass.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv := tm.Server()
	srv.Timeout = 5 * time.Minute
	if _, err := srv.Run(ctx, "wait-for", "flooded"); err != nil {
		t.Fatalf("tmux wait-for flooded: %v", err)
	}
	d := time.Since(start)
	tm.KillPane(pane)
	return d
}

// benchThroughput: the same flood through a bare pty, sup and tmux, runs
// interleaved so all three see the same machine.
func benchThroughput(t *testing.T, e *benchEnv, sz sizes) []Figure {
	fake := testutil.FakeAgent(t)
	tm := testutil.NewTmux(t)
	mbs := func(d time.Duration) float64 { return float64(sz.floodBytes) / 1e6 / d.Seconds() }
	var bare, sup, tmux, hwms []float64
	for range sz.floodRuns {
		bare = append(bare, mbs(floodBare(t, fake, sz.floodBytes)))
		d, hwm := floodSup(t, e, fake, sz.floodBytes)
		sup = append(sup, mbs(d))
		hwms = append(hwms, float64(hwm)/1024)
		tmux = append(tmux, mbs(floodTmux(t, tm, fake, sz.floodBytes)))
	}
	section := "2. passthrough throughput (" + strconv.Itoa(sz.floodBytes>>20) + " MiB flood, 120×40)"
	fs := Figure{Section: section, Name: "sup start (screen model on)", Unit: "MB/s", Goal: "≥ 0.9× bare"}
	fs.Summarise(sup)
	fs.SummariseBaseline("bare pty", bare)
	fs.Judge(fs.Ratio >= 0.9)
	ft := Figure{Section: section, Name: "tmux pane (for comparison)", Unit: "MB/s"}
	ft.Summarise(tmux)
	ft.SummariseBaseline("bare pty", bare)
	fr := Figure{Section: section, Name: "sup peak RSS during the flood (VmHWM)", Unit: "MB", Goal: "≤ 40 MB"}
	fr.Summarise(hwms)
	fr.Judge(fr.P95 <= 40)
	return []Figure{fs, ft, fr}
}
