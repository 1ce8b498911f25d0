//go:build linux

package proc

import (
	"bytes"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// countingWriter records each Write the pump makes to the pane.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	b      bytes.Buffer
	first  time.Time
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writes == 0 {
		w.first = time.Now()
	}
	w.writes++
	return w.b.Write(p)
}

// pumpOf runs sh -c script behind a pty (raw, so no output processing)
// and pumps its master into a countingWriter until the child ends.
func pumpOf(t *testing.T, script string, start func()) (*countingWriter, []byte) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // Best effort: ended already.
	master, err := Pollable(ptmx)
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	if start != nil {
		start()
	}
	w := &countingWriter{}
	var tapped bytes.Buffer
	CopyOutput(w, master, func(p []byte) { tapped.Write(p) })
	return w, tapped.Bytes()
}

// TestCopyOutputCoalesces: a flood already waiting in the pty reaches the
// pane in writes of up to PumpBufSize, not one per ~4 KiB read, whole and
// in order, and the tap gets the same bytes.
func TestCopyOutputCoalesces(t *testing.T) {
	const n = 256 << 10
	w, tapped := pumpOf(t, "stty raw -echo; head -c 262144 /dev/zero | tr '\\0' x; printf END; sleep 0.3", func() {
		time.Sleep(300 * time.Millisecond) // let the flood fill the pty's buffers
	})
	want := append(bytes.Repeat([]byte("x"), n), "END"...)
	if got := w.b.Bytes(); !bytes.Equal(got, want) {
		t.Fatalf("the pane got %d bytes, want %d x's then END", len(got), len(want))
	}
	if !bytes.Equal(tapped, want) {
		t.Fatalf("the tap got %d bytes, want the pane's %d", len(tapped), len(want))
	}
	// One write per 4 KiB read would be 64 or more.
	if w.writes > n/(16<<10) {
		t.Fatalf("%d writes to the pane for %d bytes: the pump did not take what was waiting", w.writes, n)
	}
}

// TestCopyOutputDoesNotWait: a short output goes to the pane as soon as
// it is read; the pump never waits for more to fill its buffer.
func TestCopyOutputDoesNotWait(t *testing.T) {
	var written time.Time
	started := time.Now()
	w, _ := pumpOf(t, "stty raw -echo; printf a; sleep 2; printf b", nil)
	written = w.first
	if d := written.Sub(started); d > time.Second {
		t.Fatalf("the first byte reached the pane %v after start; the pump waited for more", d)
	}
	if got := w.b.String(); got != "ab" {
		t.Fatalf("pane got %q", got)
	}
}
