//go:build linux

package supervisor_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// BenchmarkAnswerLatency measures how long `answer` takes from the request
// to the agent reading the answer's key: fakeagent -confirm asks again
// 200 ms after each answer; each iteration waits (untimed) for the new
// prompt to be on the screen for the answer's settle time (300 ms), then
// answers it by its id. Goal (specs/ipc.md, `answer`): p95 ≤ 5 ms. It
// also reports answer-gone: the request to its result, which comes once
// the prompt is seen gone (the answer's wait on the session's facts).
// Run with: go test ./supervisor -run '^$' -bench AnswerLatency -benchtime 100x
func BenchmarkAnswerLatency(b *testing.B) {
	r := newRig(b, "")
	rec := fifo(b, filepath.Join(r.dir, "typed.fifo"))
	r.write("config/sup/profiles/confirm.yaml", testutil.ConfirmProfile)
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", "--profile", "confirm", filepath.Join(r.dir, "doc.md"), "--",
		"fakeagent", "-raw", "-confirm", "it", "-reask", "200ms", "-record", rec)
	r.tm.WaitFor(b, pane, "fakeagent ready", 10*time.Second)
	in := &fifoReader{f: openFIFO(b, rec), buf: make([]byte, 4096)}
	c, err := ipc.Dial(r.sockets()[0], 2*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var lat, gone []time.Duration
	last := ""
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		var st ipc.State
		testutil.WaitUntil(b, 10*time.Second, "a new prompt", func() bool {
			st = ipc.State{}
			return c.Call(context.Background(), ipc.MethodState, nil, &st) == nil && st.PromptID != "" && st.PromptID != last
		})
		last = st.PromptID
		time.Sleep(350 * time.Millisecond) // past the settle time: what is measured is sup's path
		b.StartTimer()
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			var res ipc.AnswerResult
			err := c.Call(context.Background(), ipc.MethodAnswer, ipc.AnswerParams{Choice: "yes", Expect: st.PromptID}, &res)
			if err != nil {
				b.Logf("answer %s: %v", st.PromptID, err) // the FIFO wait below then fails
			}
			done <- err
		}()
		in.until(b, "y")
		lat = append(lat, time.Since(start))
		if err := <-done; err != nil {
			b.Fatalf("answer %s: %v", st.PromptID, err)
		}
		gone = append(gone, time.Since(start))
	}
	b.StopTimer()
	report(b, "answer", lat)
	report(b, "answer-gone", gone)
}
