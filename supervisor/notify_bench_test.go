//go:build linux

package supervisor_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkNotifyLatency measures how late a notification is: from the
// moment the session has waited `after` (its waiting_since + after) to
// the user's command reporting in, and sup's own share (SUP_WAITING_MS −
// after: the policy's timer, before the command starts). No client is
// attached, so nobody watches. Goal (specs/broker.md): ≤ 100 ms.
// Run with: go test ./supervisor -run '^$' -bench NotifyLatency -benchtime 50x
func BenchmarkNotifyLatency(b *testing.B) {
	const after = 100 * time.Millisecond
	r := newRig(b, "")
	out := fifo(b, filepath.Join(r.dir, "notified.fifo"))
	r.write("config/sup/config.yaml", "notify:\n  after: 100ms\n  tmux: false\n  command: [sh, -c, 'echo \"$SUP_WAITING_MS;\" > \"$0\"', "+strconv.Quote(out)+"]\n")
	r.start("-echo")
	in := &fifoReader{f: openFIFO(b, out), buf: make([]byte, 4096)}
	var total, own []time.Duration
	b.ResetTimer()
	for i := range b.N {
		r.hook(`{"session_id":"c1","hook_event_name":"UserPromptSubmit","prompt":"go"}`)
		r.hook(`{"session_id":"c1","hook_event_name":"Stop","last_assistant_message":"done ` + strconv.Itoa(i) + `"}`)
		since := r.state("doc").WaitingSince
		field := in.field(b, ";")
		arrived := time.Now()
		waited, err := strconv.ParseInt(strings.TrimSpace(field), 10, 64)
		if err != nil {
			b.Fatalf("SUP_WAITING_MS: %v", err)
		}
		total = append(total, arrived.Sub(time.UnixMilli(since).Add(after)))
		own = append(own, time.Duration(waited)*time.Millisecond-after)
	}
	b.StopTimer()
	report(b, "notify", total)
	report(b, "notify-sup", own)
}

// field reads until sep and returns what came before it.
func (r *fifoReader) field(b *testing.B, sep string) string {
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(r.have, sep) {
		if time.Now().After(deadline) {
			b.Fatalf("waited 10s for %q; got %q", sep, r.have)
		}
		r.f.SetReadDeadline(deadline) // Best effort: a FIFO opened non-blocking is pollable.
		n, _ := r.f.Read(r.buf)
		r.have += string(r.buf[:n])
		if n == 0 {
			time.Sleep(100 * time.Microsecond)
		}
	}
	f, rest, _ := strings.Cut(r.have, sep)
	r.have = rest
	return f
}
