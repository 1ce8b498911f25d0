//go:build linux

package supervisor_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// badFrames are the malformed inputs floodSocket sends in turn, one per
// connection: each is one warning of the kind named (specs/ipc.md).
var badFrames = []struct {
	kind  string
	frame []byte
}{
	{"bad_frame", []byte{0, 0, 0, 0}},                    // empty frame
	{"oversize_request", []byte{0xff, 0xff, 0xff, 0xff}}, // length past max_frame_bytes
	{"bad_request", []byte{0, 0, 0, 1, 0xc1}},            // not msgpack: answered, then closed by us
	{"bad_frame", []byte{0, 0, 0, 9, 0x81}},              // cut off: we close inside the frame
}

// floodSocket opens n connections to sock, 32 at a time, each sending one
// of badFrames, and waits until the server closed them (or we did).
func floodSocket(t *testing.T, sock string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := net.Dial("unix", sock)
			if err != nil {
				t.Errorf("dial %s: %v", sock, err)
				return
			}
			defer c.Close()
			k := i % len(badFrames)
			c.Write(badFrames[k].frame) // Best effort: the server may close first.
			if k == 3 {
				return // close with the frame half-written
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			buf := make([]byte, 512)
			for {
				if _, err := c.Read(buf); err != nil || k == 2 {
					return // closed by the server, or the bad request was answered
				}
			}
		}()
	}
	wg.Wait()
}

// logFiles are the session logs in stateDir, name → size.
func logFiles(t *testing.T, stateDir string) map[string]int64 {
	t.Helper()
	entries, err := os.ReadDir(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".log") || strings.HasSuffix(e.Name(), ".log.1") {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = fi.Size()
		}
	}
	return out
}

// TestE2ELogsCappedRotatedAndPruned: with tiny caps, a supervisor whose
// child prints and whose socket is flooded keeps its log within the cap
// (rotated once to <id>.log.1 at the cap) and the state dir's logs within
// log.max_total; starting it pruned the ended sessions' logs older than
// log.keep_days and the oldest ended one above the total, and kept a live
// session's log however old.
func TestE2ELogsCappedRotatedAndPruned(t *testing.T) {
	t.Parallel()
	const maxSize, maxTotal = 2 << 10, 16 << 10
	r := newRig(t, "log: {max_size: 2KB, keep_days: 1, max_total: 16KB}\n")
	stateDir := filepath.Join(r.env["XDG_STATE_HOME"], "sup")

	// A live session whose log looks three days old.
	r.write("live.md", "# live\n")
	r.Start("live", "-echo")
	live := r.state("live").SessionID + ".log"
	old := time.Now().Add(-72 * time.Hour)
	if err := os.Chtimes(filepath.Join(stateDir, live), old, old); err != nil {
		t.Fatal(err)
	}
	// Ended sessions' logs: one past keep_days, one big and old enough to
	// go when the total is over, one recent that fits.
	seed := func(name string, size int, mtime time.Time) {
		p := filepath.Join(stateDir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", size-1)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	seed("ended-old.log", 1<<10, old)
	seed("ended-old.log.1", 1<<10, old)
	seed("ended-big.log", 12<<10, time.Now().Add(-2*time.Hour))
	seed("ended-recent.log", 4<<10, time.Now().Add(-time.Hour))

	pane := r.start("-echo")
	self := r.state("doc").SessionID + ".log"
	testutil.WaitUntil(t, 10*time.Second, "the ended logs pruned", func() bool {
		fs := logFiles(t, stateDir)
		_, a := fs["ended-old.log"]
		_, b := fs["ended-old.log.1"]
		_, c := fs["ended-big.log"]
		return !a && !b && !c
	})
	both := func() string {
		one, _ := os.ReadFile(filepath.Join(stateDir, self+".1")) // Best effort: absent before the first rotation.
		cur, _ := os.ReadFile(filepath.Join(stateDir, self))      // Best effort: checked below.
		return string(one) + string(cur)
	}
	for _, want := range []string{"ended-old.log bytes=1024 why=\"ended, older than 1 days\"", "ended-big.log bytes=12288 why=\"ended, oldest while logs exceed 16KB\""} {
		if !strings.Contains(both(), want) {
			t.Errorf("the log has no log_pruned line with %q:\n%s", want, both())
		}
	}

	// The child prints a lot; the socket is flooded.
	// One tmux client for the 100 lines, not 200 (issue 29).
	var keys []string
	for i := range 100 {
		keys = append(keys, "send-keys", "-t", pane, "-l", fmt.Sprintf("line %d of what the agent prints", i), ";",
			"send-keys", "-t", pane, "Enter", ";")
	}
	if out, err := r.tm.Run(keys...); err != nil {
		t.Fatalf("type 100 lines: %v: %s", err, out)
	}
	r.tm.WaitFor(t, pane, "got: line 99 of", 10*time.Second)
	sock, err := paths.Socket(r.env["SUP_RUNTIME_DIR"], strings.TrimSuffix(self, ".log"))
	if err != nil {
		t.Fatal(err)
	}
	floodSocket(t, sock, 400)
	// Unknown methods are a kind of their own.
	c, err := ipc.Dial(sock, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		c.Call(context.Background(), "no_such_method", nil, nil) // Best effort: refused, which is the point.
	}
	c.Close()
	r.mustSup("state", "doc") // the supervisor is still fine

	fs := logFiles(t, stateDir)
	if _, ok := fs[self+".1"]; !ok {
		t.Fatalf("no %s.1: the log was never rotated (files %v)", self, fs)
	}
	for _, name := range []string{self, self + ".1"} {
		if fs[name] > maxSize {
			t.Errorf("%s is %d bytes, over log.max_size %d", name, fs[name], maxSize)
		}
	}
	// Rotated at the cap: the first record of the new file did not fit.
	cur, err := os.ReadFile(filepath.Join(stateDir, self))
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := bytes.Cut(cur, []byte("\n")); fs[self+".1"]+int64(len(first))+1 <= maxSize {
		t.Errorf("%s.1 (%d bytes) was rotated before the cap: the next record (%d bytes) fitted in %d", self, fs[self+".1"], len(first)+1, maxSize)
	}
	var total int64
	for _, n := range fs {
		total += n
	}
	if total > maxTotal {
		t.Errorf("the state dir's logs take %d bytes, over log.max_total %d: %v", total, maxTotal, fs)
	}
	for _, kept := range []string{live, "ended-recent.log"} {
		if _, ok := fs[kept]; !ok {
			t.Errorf("%s was pruned (files %v)", kept, fs)
		}
	}
	// The live log stayed although old: liveness kept it, not recency.
	if fi, err := os.Stat(filepath.Join(stateDir, live)); err == nil && fi.ModTime().After(old.Add(time.Minute)) {
		t.Errorf("the live session wrote its log meanwhile (%s): the test cannot tell liveness from recency", fi.ModTime())
	}
	t.Logf("log files after the flood: %v (total %d bytes)", fs, total)
}

// TestE2EBadConnectionStorm: 10,000 bad connections to a real supervisor
// write at most 6 lines per kind per started minute (5 in full, then one
// summary: 18 for a storm of 3 kinds under a minute) and the metrics
// method counts all 10,000.
func TestE2EBadConnectionStorm(t *testing.T) {
	t.Parallel()
	const conns = 10000
	r := newRig(t, "")
	r.start("-echo")
	st := r.state("doc")
	logPath := filepath.Join(r.env["XDG_STATE_HOME"], "sup", st.SessionID+".log")
	before, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	floodSocket(t, r.sockets()[0], conns)
	elapsed := time.Since(start)
	var m ipc.MetricsResult
	testutil.WaitUntil(t, 10*time.Second, "the counters to reach 10,000", func() bool {
		if err := r.call(ipc.MethodMetrics, nil, &m); err != nil {
			t.Fatal(err)
		}
		return m.Counters["ipc_bad_frame_total"]+m.Counters["ipc_oversize_request_total"]+m.Counters["ipc_bad_request_total"] >= conns
	})
	want := map[string]int64{"ipc_bad_frame_total": conns / 2, "ipc_oversize_request_total": conns / 4, "ipc_bad_request_total": conns / 4}
	for k, v := range want {
		if m.Counters[k] != v {
			t.Errorf("metrics %s = %d, want %d (all %v)", k, m.Counters[k], v, m.Counters)
		}
	}
	after, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	added := strings.Count(string(after[len(before):]), `msg="ipc:`)
	bound := 3 * (ipc.DefaultNoisyBurst + 1) * (1 + int(elapsed/ipc.DefaultNoisyInterval))
	if added > bound {
		t.Errorf("%d bad connections in %s wrote %d ipc log lines, want at most %d:\n%s", conns, elapsed, added, bound, after[len(before):])
	}
	t.Logf("%d bad connections in %s: %d log lines (bound %d), counters %v", conns, elapsed.Round(time.Millisecond), added, bound, m.Counters)
}

// auditAcross counts audit lines by trigger id across audit.jsonl and the
// rotated files, and says how many rotated files there are.
func auditAcross(t *testing.T, stateDir string) (map[string]int, int) {
	t.Helper()
	rotated, err := filepath.Glob(filepath.Join(stateDir, "audit-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string(nil), rotated...)
	counts := map[string]int{}
	if _, err := os.Stat(filepath.Join(stateDir, "audit.jsonl")); err == nil {
		files = append(files, filepath.Join(stateDir, "audit.jsonl"))
	}
	for _, p := range files {
		for id, n := range auditLines(t, p) {
			counts[id] += n
		}
	}
	return counts, len(rotated)
}

// TestE2EAuditRotationSIGKILL: with a 1KB audit.max_size every append
// rotates; triggers flow and sup is SIGKILLed at a random moment (so
// within an append or a rotation, or between them). Every answered trigger
// has exactly one line across the files, none has two, and after a
// restart a trigger id whose line was rotated away still gets its first
// outcome.
func TestE2EAuditRotationSIGKILL(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig+"  rate_limit: 100000\n  loop_no_progress: 100000\naudit: {max_size: 1KB, keep: 10000}\n")
	stateDir := filepath.Join(r.env["XDG_STATE_HOME"], "sup")
	r.startFast()
	first := r.trigger(ipc.TriggerParams{TriggerID: "first", Prompt: "p first", Wait: true})
	if first.Result != ipc.OutcomeDelivered {
		t.Fatalf("first trigger: %+v", first)
	}
	ids := append([]string{"first"}, r.triggerUntilKilled("k-", 100000)...)
	if len(ids) < 3 {
		t.Fatalf("only %v answered before the kill; the test proves nothing", ids)
	}
	check := func(when string, ids []string) int {
		t.Helper()
		lines, rotated := auditAcross(t, stateDir)
		for _, id := range ids {
			if lines[id] != 1 {
				t.Errorf("%s: trigger %s was answered but has %d audit lines", when, id, lines[id])
			}
		}
		for id, n := range lines {
			if n > 1 {
				t.Errorf("%s: trigger %s has %d audit lines", when, id, n)
			}
		}
		return rotated
	}
	rotated := check("after the SIGKILL", ids)
	if rotated < len(ids)-1 {
		t.Fatalf("%d rotated audit files for %d triggers: the cap did not rotate at every append", rotated, len(ids))
	}
	active, _ := os.ReadFile(filepath.Join(stateDir, "audit.jsonl")) // Best effort: absent if killed between a rotation's rename and the new file.
	if strings.Contains(string(active), `"trigger_id":"first"`) {
		t.Fatal("the first trigger's line is still in audit.jsonl: the repeat below would not read across the rotation")
	}

	// Restart on the same document: the stale socket goes, the ids stay.
	r.startFast()
	testutil.WaitUntil(t, 10*time.Second, "the stale socket swept", func() bool { return len(r.sockets()) == 1 })
	for _, id := range []string{"first", ids[len(ids)-1]} {
		again := r.trigger(ipc.TriggerParams{TriggerID: id, Prompt: "p " + id, Wait: true})
		if !again.Repeat || again.Result != ipc.OutcomeDelivered {
			t.Errorf("%s after the restart: %+v, want its first outcome as a repeat", id, again)
		}
		if id == "first" && again.DeliveredAt != first.DeliveredAt {
			t.Errorf("first after the restart delivered at %d, first answer said %d", again.DeliveredAt, first.DeliveredAt)
		}
	}
	// A new trigger appends (cutting any torn tail the kill left).
	if res := r.trigger(ipc.TriggerParams{TriggerID: "after", Prompt: "p after", Wait: true}); res.Result != ipc.OutcomeDelivered || res.Repeat {
		t.Fatalf("a new trigger after the restart: %+v", res)
	}
	check("after the restart", append(ids, "after"))
	t.Logf("%d triggers answered before SIGKILL across %d rotated files", len(ids), rotated)
}
