//go:build linux

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestDashE2E: `sup dash` in a real tmux pane shows three live sessions,
// redraws a row when its session gets stuck (from the event, not a poll),
// lists a session started later and drops one that stops, and Enter moves
// a real attached client to the selected session's pane.
func TestDashE2E(t *testing.T) {
	t.Parallel()
	f := testutil.NewRig(t, "")
	client := f.Tmux.AttachClient(t)
	panes := map[string]string{}
	for _, n := range []string{"alpha", "bravo", "charlie"} {
		panes[n] = f.Start(n, "-echo")
	}
	dash := f.Tmux.NewWindowDir(f.Dir, f.Env, f.Bins.Sup, "dash")
	if _, err := f.Tmux.Run("select-window", "-t", dash); err != nil {
		t.Fatal(err)
	}
	// Every row, each as its supervisor publishes it (under the suite's
	// load a row may come a moment after the others).
	var screen string
	testutil.WaitUntil(t, 10*time.Second, "a row for each of alpha, bravo and charlie", func() bool {
		screen = f.Tmux.Capture(dash)
		return testutil.ScreenRow(screen, "alpha") != "" && testutil.ScreenRow(screen, "bravo") != "" && testutil.ScreenRow(screen, "charlie") != ""
	})
	before := testutil.ScreenRow(screen, "bravo")

	bravo := f.Socket("bravo")
	start := time.Now()
	ipctest.Hook(t, bravo, "bravo", "Stop")
	var after string
	for time.Since(start) < 5*time.Second {
		if after = testutil.ScreenRow(f.Tmux.Capture(dash), "bravo"); after != before && strings.Contains(after, "bravo is done") {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	latency := time.Since(start)
	if !strings.Contains(after, "bravo is done") {
		t.Fatalf("bravo's row did not change when it got stuck:\nbefore %q\nafter  %q", before, after)
	}
	t.Logf("row changed %v after the Stop hook (goal 200ms): %q", latency, after)

	f.Start("delta", "-echo")
	f.Tmux.WaitFor(t, dash, "delta", 10*time.Second)
	if _, err := f.Sup(nil, "stop", "alpha"); err != nil {
		t.Fatal(err)
	}
	screen = f.Tmux.WaitForScreen(t, dash, "sup dash · 3 sessions", 10*time.Second)
	if testutil.ScreenRow(screen, "alpha") != "" {
		t.Fatalf("alpha stopped but is still listed:\n%s", screen)
	}

	// Select bravo through the filter, then Enter: the human's client,
	// which shows the dashboard, lands on bravo's pane.
	f.Tmux.SendLiteral(dash, "/brav")
	f.Tmux.SendKeys(dash, "Enter")
	f.Tmux.WaitForScreen(t, dash, `filter "brav" (1 shown`, 10*time.Second)
	f.Tmux.SendKeys(dash, "Enter")
	testutil.WaitUntil(t, 10*time.Second, "the client to land on bravo's pane", func() bool {
		return f.Tmux.ClientPane(t, client) == panes["bravo"]
	})
	f.Tmux.WaitForScreen(t, dash, "jumped to bravo", 10*time.Second)

	// a: bravo waits at no prompt, and the dashboard says so.
	f.Tmux.SendKeys(dash, "a")
	f.Tmux.WaitForScreen(t, dash, "answer: bravo shows no prompt", 10*time.Second)

	// The runtime dir deleted under everyone: the supervisors recreate it
	// and their sockets; the dashboard keeps every session and still
	// follows their events.
	f.Tmux.SendKeys(dash, "Escape")
	testutil.RemoveLiveDir(t, f.RuntimeDir())
	// Each supervisor relistens on its own (the first recreates the dir):
	// wait for every socket, not for the dir.
	for _, n := range []string{"bravo", "charlie", "delta"} {
		f.Socket(n)
	}
	ipctest.Stuck(t, f.Socket("charlie"), "charlie")
	testutil.WaitUntil(t, 10*time.Second, "charlie's row to show its Stop after the dir came back", func() bool {
		screen := f.Tmux.Capture(dash)
		return strings.Contains(testutil.ScreenRow(screen, "charlie"), "charlie is done") && !strings.Contains(screen, "is gone") &&
			strings.Contains(screen, "3 sessions")
	})
}
