//go:build linux

package broker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// BenchmarkDiscover200 is the broker's fan-out (what sup ls --json does
// after start-up) against 200 live sockets answering state. In-process
// servers stand in for supervisors: the socket round trips are real, the
// agents are not (the goal's end-to-end figure, with real supervisors and
// process start-up, is measured separately; see specs/broker.md).
func BenchmarkDiscover200(b *testing.B) {
	dir := shortDir(b)
	for i := range 200 {
		id := fmt.Sprintf("%012x", i)
		serve(b, dir, ipc.State{SessionID: id, Name: "agent-" + id, Lifecycle: "running", Activity: "ready", WaitingSince: int64(i + 1)})
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := Discover(context.Background(), dir, time.Second)
		if err != nil || len(res.Sessions) != 200 {
			b.Fatalf("%d sessions, %d errors, %v", len(res.Sessions), len(res.Errors), err)
		}
		if q := Queue(res.Sessions, time.Now()); len(q) != 200 {
			b.Fatalf("queue of %d", len(q))
		}
	}
}
