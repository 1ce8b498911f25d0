//go:build linux

package ipc

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestSubscribeFilterSeqAt(t *testing.T) {
	ts := startServer(t, ServerConfig{Events: []string{"state", "exit", "output"}}, testHandlers)
	all := dialClient(t, ts.path)
	subAll, err := all.Subscribe(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(subAll.Events(), " "); got != "exit output state" {
		t.Fatalf("all events: %q", got)
	}
	some := dialClient(t, ts.path)
	subSome, err := some.Subscribe(context.Background(), []string{"state", "exit", "state"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(subSome.Events(), " "); got != "exit state" {
		t.Fatalf("filtered events: %q", got)
	}

	before := time.Now().UnixMilli()
	names := []string{"state", "output", "exit", "state", "output", "state"}
	for i, n := range names {
		ts.Publish(n, map[string]any{"i": i})
		time.Sleep(2 * time.Millisecond)
	}
	ts.Publish("state", nil) // nil data arrives as an empty map
	after := time.Now().UnixMilli()

	read := func(s *Subscription, n int) []Event {
		var evs []Event
		for range n {
			ev, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
		}
		return evs
	}
	check := func(evs []Event, wantNames string) {
		t.Helper()
		var got []string
		for k, ev := range evs {
			got = append(got, ev.Event)
			if ev.At < before || ev.At > after {
				t.Fatalf("event %d at %d, outside [%d, %d]", k, ev.At, before, after)
			}
			if ev.Data == nil {
				t.Fatalf("event %d has nil data", k)
			}
			if k > 0 && (ev.Seq <= evs[k-1].Seq || ev.At < evs[k-1].At) {
				t.Fatalf("event %d (seq %d, at %d) not after event %d (seq %d, at %d)",
					k, ev.Seq, ev.At, k-1, evs[k-1].Seq, evs[k-1].At)
			}
		}
		if strings.Join(got, " ") != wantNames {
			t.Fatalf("events %q, want %q", strings.Join(got, " "), wantNames)
		}
	}
	evAll := read(subAll, 7)
	check(evAll, "state output exit state output state state")
	for k, ev := range evAll {
		if ev.Seq != uint64(k+1) {
			t.Fatalf("event %d has seq %d, want %d (seq starts at 1)", k, ev.Seq, k+1)
		}
		if k < 6 && ev.Data["i"] != int64(k) {
			t.Fatalf("event %d data %v", k, ev.Data)
		}
	}
	evSome := read(subSome, 5)
	check(evSome, "state exit state state state")
	if evSome[1].Seq != 3 {
		t.Fatalf("filtered stream keeps the server's seq: got %d, want 3", evSome[1].Seq)
	}

	// A subscribed client cannot call.
	if err := all.Call(context.Background(), "state", nil, nil); !errors.Is(err, ErrSubscribed) {
		t.Fatalf("Call on a subscribed client: %v", err)
	}
}

func TestSubscribeUnknownEvent(t *testing.T) {
	ts := startServer(t, ServerConfig{Events: []string{"state"}}, testHandlers)
	c := dialClient(t, ts.path)
	_, err := c.Subscribe(context.Background(), []string{"state", "nope"})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeBadRequest || !strings.Contains(e.Message, `"nope"`) {
		t.Fatalf("unknown event: %v", err)
	}
	// Still a request connection.
	if err := c.Call(context.Background(), "state", nil, nil); err != nil {
		t.Fatalf("after a refused subscribe: %v", err)
	}
	// Wrongly typed params.
	rc := dialRaw(t, ts.path)
	writeAll(t, rc, frameOf(mustMarshal(t, map[string]any{"v": 1, "id": 3, "method": "subscribe", "params": map[string]any{"events": "state"}})))
	if r := readResponse(t, rc); r.Error == nil || r.Error.Code != CodeBadRequest || !strings.Contains(r.Error.Message, "expected an array") {
		t.Fatalf("events as a string: %+v", r)
	}
}

// TestSubscribedConnectionTakesNoRequests: any frame after subscribe
// closes the connection.
func TestSubscribedConnectionTakesNoRequests(t *testing.T) {
	ts := startServer(t, ServerConfig{Events: []string{"state"}, IdleTimeout: 100 * time.Millisecond}, testHandlers)
	c := dialRaw(t, ts.path)
	writeAll(t, c, frameOf(mustMarshal(t, map[string]any{"v": 1, "id": 1, "method": "subscribe"})))
	if r := readResponse(t, c); !r.OK {
		t.Fatalf("subscribe: %+v", r)
	}
	// Subscribed connections are exempt from the idle timeout.
	time.Sleep(300 * time.Millisecond)
	ts.Publish("state", map[string]any{"x": 1})
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	body, err := ReadFrame(c, 0)
	if err != nil {
		t.Fatalf("event after idling: %v", err)
	}
	var ev Event
	if err := unmarshal(body, &ev); err != nil || ev.Event != "state" {
		t.Fatalf("event %+v, %v", ev, err)
	}
	writeAll(t, c, frameOf(mustMarshal(t, map[string]any{"v": 1, "id": 2, "method": "hello"})))
	expectClosed(t, c, 2*time.Second)
}

// TestSlowSubscriberDoesNotBlockPublish: a subscriber that never reads is
// dropped; Publish stays fast and others keep receiving.
func TestSlowSubscriberDoesNotBlockPublish(t *testing.T) {
	ts := startServer(t, ServerConfig{Events: []string{"output"}, EventBuffer: 16, WriteTimeout: 200 * time.Millisecond}, testHandlers)
	stuck := dialRaw(t, ts.path)
	writeAll(t, stuck, frameOf(mustMarshal(t, map[string]any{"v": 1, "id": 1, "method": "subscribe"})))
	if r := readResponse(t, stuck); !r.OK {
		t.Fatalf("subscribe: %+v", r)
	}
	payload := map[string]any{"text": strings.Repeat("x", 4096)}
	start := time.Now()
	for i := 0; i < 5000; i++ {
		ts.Publish("output", payload)
	}
	if d := time.Since(start); d > 10*time.Second { // blocked, it would not return at all
		t.Fatalf("5000 Publish calls took %v beside a stuck subscriber", d)
	}
	// The stuck subscriber was dropped: after what was buffered, EOF.
	stuck.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, err := ReadFrame(stuck, 0)
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) || !isTimeout(err) {
			break
		}
		t.Fatalf("stuck subscriber not dropped: %v", err)
	}
	if !strings.Contains(ts.logs.String(), "dropping subscriber") {
		t.Fatalf("drop not logged:\n%s", ts.logs)
	}
	// A new subscriber is served normally.
	c := dialClient(t, ts.path)
	sub, err := c.Subscribe(context.Background(), []string{"output"})
	if err != nil {
		t.Fatal(err)
	}
	ts.Publish("output", map[string]any{"n": 1})
	ev, err := sub.Next()
	if err != nil || ev.Data["n"] != int64(1) {
		t.Fatalf("next: %+v %v", ev, err)
	}
	if ev.Seq != 5001 {
		t.Fatalf("seq %d, want 5001", ev.Seq)
	}
}

func TestPublishUnknownEventIsNotSent(t *testing.T) {
	ts := startServer(t, ServerConfig{Events: []string{"state"}}, testHandlers)
	c := dialClient(t, ts.path)
	sub, err := c.Subscribe(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts.Publish("bogus", nil)
	ts.Publish("state", nil)
	ev, err := sub.Next()
	if err != nil || ev.Event != "state" || ev.Seq != 1 {
		t.Fatalf("got %+v %v", ev, err)
	}
	if !strings.Contains(ts.logs.String(), "bogus") {
		t.Fatal("unknown event not logged")
	}
}

func TestSubscriptionEndsOnServerClose(t *testing.T) {
	path := shortDir(t) + "/e.sock"
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(ServerConfig{Events: []string{"state"}})
	go s.Serve(ln)
	c := dialClient(t, path)
	sub, err := c.Subscribe(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := sub.Next(); done <- err }()
	time.Sleep(20 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("Next after server close: %v, want io.EOF", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Next still blocked after server close")
	}
	s.Publish("state", nil) // after Close: a no-op
}
