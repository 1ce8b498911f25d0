//go:build linux

package supervisor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// BenchmarkTriggerLatency measures, in one run, how long a prompt takes
// from the request to its first byte reaching the agent: the socket
// `trigger` method (no envelope, no collision; sup under a 1 ms submit
// delay profile) against `tmux send-keys -l` into a pane running the same
// fakeagent without sup. Goal (specs/triggers.md): sup's p95 ≤ 2 ms.
// Run with: make bench-trigger (1000 triggers each).
func BenchmarkTriggerLatency(b *testing.B) {
	r := newRig(b, `trigger:
  ack_timeout: 1ms
  retries: -1
  rate_limit: 1000000
  loop_no_progress: 1000000
  loop_same_prompt: 1000000
`)
	supFIFO := fifo(b, filepath.Join(r.dir, "sup.fifo"))
	tmuxFIFO := fifo(b, filepath.Join(r.dir, "tmux.fifo"))
	r.write("config/sup/profiles/fast.yaml", fastProfile)
	sup := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "fast", filepath.Join(r.dir, "doc.md"), "--",
		"fakeagent", "-ready", "-raw", "-record", supFIFO)
	bare := r.tm.NewWindowDir(r.dir, r.env, r.bins.FakeAgent, "-raw", "-record", tmuxFIFO)
	r.tm.WaitFor(b, sup, "fakeagent ready", 10*time.Second)
	r.tm.WaitFor(b, bare, "fakeagent ready", 10*time.Second)
	supIn := &fifoReader{f: openFIFO(b, supFIFO), buf: make([]byte, 4096)}
	tmuxIn := &fifoReader{f: openFIFO(b, tmuxFIFO), buf: make([]byte, 4096)}

	c, err := ipc.Dial(r.sockets()[0], 2*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	off := false
	var supLat, tmuxLat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		text := fmt.Sprintf("prompt %d", i)
		start := time.Now()
		var res ipc.TriggerResult
		p := ipc.TriggerParams{TriggerID: fmt.Sprintf("b-%d", i), Prompt: text, Envelope: &off}
		if err := c.Call(context.Background(), ipc.MethodTrigger, p, &res); err != nil {
			b.Fatal(err)
		}
		supIn.until(b, text)
		supLat = append(supLat, time.Since(start))
		supIn.until(b, "\r") // the submit, before the next trigger

		start = time.Now()
		if _, err := r.tm.Run("send-keys", "-t", bare, "-l", text); err != nil {
			b.Fatal(err)
		}
		tmuxIn.until(b, text)
		tmuxLat = append(tmuxLat, time.Since(start))
	}
	b.StopTimer()
	report(b, "sup", supLat)
	report(b, "tmux", tmuxLat)
}

// BenchmarkTriggerAck measures a waiting trigger from the request to its
// outcome, delivered and acknowledged: the envelope pasted and submitted
// (1 ms submit delay), fakeagent -ack printing its marker, the screen
// reading it and the desk's ack wait noticing (issue 29: the wait watches
// the session's change signal). Run with:
// go test ./supervisor -run '^$' -bench TriggerAck -benchtime 200x
func BenchmarkTriggerAck(b *testing.B) {
	r := newRig(b, `trigger:
  ack_marker: "ACK_TRIGGER:{id}"
  rate_limit: 1000000
  loop_no_progress: 1000000
  loop_same_prompt: 1000000
`)
	r.write("config/sup/profiles/fast.yaml", fastProfile)
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "fast", filepath.Join(r.dir, "doc.md"), "--",
		"fakeagent", "-ready", "-raw", "-ack")
	r.tm.WaitFor(b, pane, "fakeagent ready", 10*time.Second)
	c, err := ipc.Dial(r.sockets()[0], 2*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		var res ipc.TriggerResult
		p := ipc.TriggerParams{TriggerID: fmt.Sprintf("a-%d", i), Prompt: fmt.Sprintf("prompt %d", i), Wait: true}
		if err := c.Call(context.Background(), ipc.MethodTrigger, p, &res); err != nil {
			b.Fatal(err)
		}
		if res.Result != ipc.OutcomeDelivered {
			b.Fatalf("trigger %d: %+v", i, res)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	report(b, "ack", lat)
}

func fifo(b *testing.B, path string) string {
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// openFIFO opens a FIFO for reading without waiting for a writer (the
// agent opens it at its first input).
func openFIFO(b *testing.B, path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}

// fifoReader reads what an agent recorded into a FIFO.
type fifoReader struct {
	f    *os.File
	buf  []byte
	have string // read but not yet consumed
}

// until reads until what has arrived and consumes everything up to it.
func (r *fifoReader) until(b *testing.B, what string) {
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(r.have, what) {
		if time.Now().After(deadline) {
			b.Fatalf("waited 10s for %q; got %q", what, r.have)
		}
		r.f.SetReadDeadline(deadline) // Best effort: a FIFO opened non-blocking is pollable.
		n, err := r.f.Read(r.buf)
		r.have += string(r.buf[:n])
		if err != nil && n == 0 {
			time.Sleep(100 * time.Microsecond) // no writer (EOF): fakeagent opens the FIFO per read
		}
	}
	_, r.have, _ = strings.Cut(r.have, what)
}

func report(b *testing.B, name string, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(int(p*float64(len(lat))), len(lat)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), name+"-p50-ms")
	b.ReportMetric(pct(0.95), name+"-p95-ms")
}
