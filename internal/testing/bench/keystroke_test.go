//go:build linux

package bench

import (
	"os"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// benchKeystroke: a key typed in a pane (tmux send-keys) → read by the
// child, through sup in one window and with the child bare in another of
// the same tmux server, interleaved so that both see the same load. sup
// reads the pane's input through its tokenizer (specs/detection.md,
// "Terminal input"); this is the figure that says it costs nothing a
// human could feel.
func benchKeystroke(t *testing.T, e *benchEnv, sz sizes) []Figure {
	readstamp := testutil.BuildPackage(t, "./testdata/readstamp")
	tm := testutil.NewTmux(t)
	// A runtime dir of its own: the scale section counts e.rt's sessions.
	rt, err := os.MkdirTemp("", "sup-keys-") // short: the 108-byte socket path limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	env := map[string]string{"SUP_RUNTIME_DIR": rt, "XDG_STATE_HOME": e.dir + "/state", "XDG_CONFIG_HOME": e.dir + "/config"}

	supFIFO, supStamps := stampFIFO(t)
	supPane := tm.NewWindow(env, e.sup, "start", "--profile", "shell", e.doc(), "--", readstamp, "-out", supFIFO)
	tm.WaitFor(t, supPane, "readstamp ready", 10*time.Second)
	bareFIFO, bareStamps := stampFIFO(t)
	barePane := tm.NewWindow(nil, readstamp, "-out", bareFIFO)
	tm.WaitFor(t, barePane, "readstamp ready", 10*time.Second)

	var viaSup, bare []float64
	for range sz.injects {
		viaSup = append(viaSup, latencies(t, 1, supStamps, func() error {
			_, err := tm.Run("send-keys", "-t", supPane, "-l", "a")
			return err
		})...)
		bare = append(bare, latencies(t, 1, bareStamps, func() error {
			_, err := tm.Run("send-keys", "-t", barePane, "-l", "a")
			return err
		})...)
	}
	f := Figure{Section: "1. inject latency (request → read by the child)", Name: "keystroke through sup (tmux send-keys)",
		Unit: "ms", Goal: "p50 within 0.5 ms of a bare pane"}
	f.Summarise(viaSup)
	f.SummariseBaseline("bare pane", bare)
	f.Judge(f.Median <= f.BaselineMedian+0.5)
	return []Figure{f}
}
