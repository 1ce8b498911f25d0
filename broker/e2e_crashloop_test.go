//go:build linux

package broker_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// A crash loop waits on you (issue 32): a child that exits 1 at once is
// in the stuck queue from its first failure, at that place, through its
// restarts and its halt, with the exit and its last line as the summary,
// and in the status line; sup resume starts a new episode.
func TestE2ECrashLoopWaits(t *testing.T) {
	t.Parallel()
	// The first restart waits 3 s: the first crash's queue entry must be
	// there to see before the loop halts (at 300 ms a loaded CI machine's
	// first `sup queue` already found it halted).
	f := newFleet(t, "crash: {transient_delay: 3s, flapping_delay: 600ms, flap_threshold: 3, halt_after: 4, stable_after: 1m}\n")
	doc := f.write("loop.md", "# loop\n")
	prog := f.write("prog.sh", "#!/bin/sh\necho starting\necho 'Error: getaddrinfo ENOTFOUND api.example.com'\nexit 1\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	f.tm.NewWindowDir(f.dir, f.env, f.bins.Sup, "start", "--name", "loop", doc, "--", "./prog.sh")

	entry := func() (broker.QueueItem, bool) {
		t.Helper()
		var items []broker.QueueItem
		if err := json.Unmarshal([]byte(f.mustSup("queue", "--json")), &items); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it.Name == "loop" {
				return it, true
			}
		}
		return broker.QueueItem{}, false
	}
	var first broker.QueueItem
	testutil.WaitUntil(t, 10*time.Second, "the crashing session in the queue", func() bool {
		var ok bool
		first, ok = entry()
		return ok
	})
	if !strings.Contains(first.Summary, "exit 1 (transient): Error: getaddrinfo ENOTFOUND api.example.com") {
		t.Fatalf("queue entry after the first crash: reason %q summary %q", first.Reason, first.Summary)
	}
	if out := strings.TrimSpace(f.mustSup("status-line")); out != "⚠ 1 stuck · next: loop" {
		t.Fatalf("status-line of a crash loop: %q", out)
	}
	testutil.WaitUntil(t, 15*time.Second, "the crash policy to halt it", func() bool {
		return f.session("loop").State.Lifecycle == "halted"
	})
	halted, ok := entry()
	if !ok || halted.WaitingSince != first.WaitingSince || halted.Reason != "halted" ||
		!strings.Contains(halted.Summary, "exit 1 (flapping), 4 in a row: Error: getaddrinfo ENOTFOUND api.example.com") {
		t.Fatalf("the halted entry: %+v, want the first crash's place (%d), reason halted, the halt as summary", halted, first.WaitingSince)
	}
	out := f.mustSup("queue")
	if !strings.Contains(out, "halted") || !strings.Contains(out, "exit 1 (flapping), 4 in a row: Error: get") {
		t.Fatalf("sup queue:\n%s", out)
	}
	// Every restart in between kept the episode's place: the session was
	// never out of the queue (the status line never empty).
	if out := strings.TrimSpace(f.mustSup("status-line")); out != "⚠ 1 stuck · next: loop" {
		t.Fatalf("status-line of a halted session: %q", out)
	}
	// sup answer says what will help; sup resume starts a new episode.
	if _, err := f.sup("answer", "loop", "y"); err == nil || !strings.Contains(err.Error(), "sup resume loop") {
		t.Fatalf("sup answer to a halted session: %v", err)
	}
	out = f.mustSup("resume", "loop")
	if !strings.Contains(out, "resumed loop: its agent starts again (pid ") || !strings.Contains(out, "comes back if it crashes again") {
		t.Fatalf("sup resume: %q", out)
	}
	testutil.WaitUntil(t, 10*time.Second, "a new episode", func() bool {
		e, ok := entry()
		return ok && e.WaitingSince > halted.WaitingSince && e.Reason != "halted"
	})
}
