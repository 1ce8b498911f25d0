//go:build linux

package ipc

import (
	"context"
	"testing"
)

// A subscriber that reconnects with since_seq gets what it missed, then the
// live events, with no seq twice and none skipped.
func TestSubscribeSinceReplays(t *testing.T) {
	ts := startServer(t, ServerConfig{Events: []string{"a", "b"}, EventBuffer: 4}, testHandlers)
	for range 3 {
		ts.Publish("a", nil)
	}
	c := dialClient(t, ts.path)
	sub, res, err := c.SubscribeSince(context.Background(), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Seq != 3 || res.Gap {
		t.Fatalf("result %+v, want seq 3 and no gap", res)
	}
	ts.Publish("b", nil)
	for want := uint64(2); want <= 4; want++ {
		ev, err := sub.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Seq != want {
			t.Fatalf("seq %d, want %d", ev.Seq, want)
		}
	}

	// Past the buffer (4 events), the replay says there is a gap.
	for range 5 {
		ts.Publish("b", nil)
	}
	c2 := dialClient(t, ts.path)
	sub2, res2, err := c2.SubscribeSince(context.Background(), []string{"b"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !res2.Gap || res2.Seq != 9 {
		t.Fatalf("result %+v, want a gap at seq 9", res2)
	}
	if ev, err := sub2.Next(); err != nil || ev.Seq != 6 {
		t.Fatalf("first replayed event %+v, %v; want seq 6, the oldest buffered", ev, err)
	}

	// A since_seq above the server's numbering came from an earlier server.
	c3 := dialClient(t, ts.path)
	if _, res3, err := c3.SubscribeSince(context.Background(), nil, 100); err != nil || !res3.Gap {
		t.Fatalf("since above seq: %+v, %v; want a gap", res3, err)
	}
}
