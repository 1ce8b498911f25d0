//go:build linux

package supervisor_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// fastProfile runs fakeagent with a 1 ms submit delay, so that hundreds of
// triggers take seconds.
const fastProfile = "command: [fakeagent]\nsubmit_delay: 1ms\nenvelope: true\n"

// startFast starts fakeagent -raw -ack under the fast profile.
func (r *rig) startFast() string {
	r.t.Helper()
	r.write("config/sup/profiles/fast.yaml", fastProfile)
	argv := []string{r.bins.Sup, "start", "--profile", "fast", filepath.Join(r.dir, "doc.md"), "--", "fakeagent", "-ready", "-raw", "-ack"}
	pane := r.tm.NewWindowDir(r.dir, r.env, argv...)
	r.tm.WaitFor(r.t, pane, "fakeagent ready", 10*time.Second)
	return pane
}

// TestE2ETriggerAuditDurability (fault): triggers are sent one after
// another and sup is SIGKILLed at a random moment; every trigger whose
// outcome reached the client has exactly one audit line, and no trigger
// has two.
func TestE2ETriggerAuditDurability(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig+"  rate_limit: 100000\n  loop_no_progress: 100000\n")
	r.startFast()
	answered := r.triggerUntilKilled("d-", 500)
	lines := auditLines(t, filepath.Join(r.env["XDG_STATE_HOME"], "sup", "audit.jsonl"))
	if len(answered) == 0 {
		t.Fatal("no trigger was answered before the kill; the test proves nothing")
	}
	for _, id := range answered {
		if lines[id] != 1 {
			t.Errorf("trigger %s was answered but has %d audit lines", id, lines[id])
		}
	}
	for id, n := range lines {
		if n > 1 {
			t.Errorf("trigger %s has %d audit lines", id, n)
		}
	}
	t.Logf("%d triggers answered before SIGKILL, %d audit lines", len(answered), len(lines))
}

// triggerUntilKilled sends triggers prefix0, prefix1, … (at most max) one
// after another with wait, SIGKILLs sup at a random moment 0.5–3 s in (each
// takes some ms), and returns the ids whose outcome reached the client.
func (r *rig) triggerUntilKilled(prefix string, max int) []string {
	r.t.Helper()
	supPID := r.state("doc").SupPID
	var (
		mu       sync.Mutex
		answered []string
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ipc.Dial(r.sockets()[0], 2*time.Second)
		if err != nil {
			return
		}
		defer c.Close()
		for i := range max {
			id := fmt.Sprintf("%s%d", prefix, i)
			var res ipc.TriggerResult
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err := c.Call(ctx, ipc.MethodTrigger, ipc.TriggerParams{TriggerID: id, Prompt: "p " + id, Wait: true}, &res)
			cancel()
			if err != nil {
				return // sup is gone
			}
			mu.Lock()
			answered = append(answered, id)
			mu.Unlock()
		}
	}()
	time.Sleep(time.Duration(500+rand.IntN(2500)) * time.Millisecond)
	if err := syscall.Kill(supPID, syscall.SIGKILL); err != nil {
		r.t.Fatalf("kill sup: %v", err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		r.t.Fatal("the client did not notice sup's death")
	}
	// The client may have stopped before the kill (a call that failed):
	// the kill is asynchronous, and until sup has exited — every thread,
	// which ipc.PIDAlive tells — it holds the document's lock, so the
	// next start on it is refused (run 69).
	testutil.WaitUntil(r.t, 10*time.Second, "the killed sup to exit", func() bool { return !ipc.PIDAlive(supPID) })
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), answered...)
}

// auditLines counts audit lines by trigger id. Only the very last line may
// be torn (sup died while writing it).
func auditLines(t *testing.T, path string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var bad []string
	for sc.Scan() {
		var rec struct {
			TriggerID string `json:"trigger_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			bad = append(bad, sc.Text())
			continue
		}
		if len(bad) > 0 {
			t.Fatalf("a torn audit line before the last: %q", bad[0])
		}
		counts[rec.TriggerID]++
	}
	if len(bad) > 1 {
		t.Fatalf("%d torn audit lines", len(bad))
	}
	return counts
}
