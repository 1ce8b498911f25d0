//go:build linux

package broker

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/ipc"
)

// relayOn runs ServeRelay on a socketpair, as ssh would on its stdio, and
// returns a v1 client to it and the relay's end.
func relayOn(t *testing.T, dir string) (*ipc.Client, <-chan error, func()) {
	t.Helper()
	clientEnd, relayEnd, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- ServeRelay(context.Background(), relayEnd, relayEnd, RelayConfig{RuntimeDir: dir, Version: "test"})
	}()
	c := ipc.NewClient(clientEnd)
	t.Cleanup(func() { c.Close(); relayEnd.Close() })
	return c, done, func() { clientEnd.(*net.UnixConn).CloseWrite() }
}

// The relay answers the v1 protocol over stdio: hello lists its methods,
// relay.list the host's supervisors, params are strict, events come with
// each supervisor's own seq, and it exits when its stdin closes.
func TestRelayProtocol(t *testing.T) {
	dir := shortDir(t)
	a := ipctest.Serve(t, dir, ipc.State{SessionID: "aaaaaaaaaaaa", Name: "alpha", WaitingSince: 5})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, done, hangUp := relayOn(t, dir)

	var hello ipc.HelloResult
	if err := c.Call(ctx, ipc.MethodHello, nil, &hello); err != nil || hello.Server != "test" {
		t.Fatalf("hello %+v, %v", hello, err)
	}
	var list RelayListResult
	if err := c.Call(ctx, MethodRelayList, RelayListParams{TimeoutMS: 500}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].State.Name != "alpha" || list.Host != LocalHostName() {
		t.Fatalf("relay.list %+v", list)
	}
	err := c.Call(ctx, MethodRelayList, map[string]any{"timeout": 5}, nil)
	if e := ipc.AsError(err); e == nil || e.Code != ipc.CodeBadRequest {
		t.Fatalf("unknown param: %v, want BAD_REQUEST", err)
	}

	if err := c.Call(ctx, MethodRelayWatch, RelayWatchParams{}, nil); err != nil {
		t.Fatal(err)
	}
	sub, _, err := c.SubscribeSince(ctx, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The relay subscribes within its first scan; the event after that
	// comes through with alpha's own seq.
	var got SessionEvent
	next := make(chan ipc.Event, 16)
	go func() { // one reader: Next is not for concurrent use
		for {
			ev, err := sub.Next()
			if err != nil {
				return
			}
			next <- ev
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for got.Event != "activity" && time.Now().Before(deadline) {
		a.Set(ipc.State{SessionID: "aaaaaaaaaaaa", Name: "alpha", Activity: "busy", Summary: "x"})
		select {
		case ev := <-next:
			got, _ = relayEvent("h", ev)
		case <-time.After(200 * time.Millisecond):
		}
	}
	if got.Event != "activity" || got.Session != "aaaaaaaaaaaa" || got.Seq == 0 || got.Host != "h" {
		t.Fatalf("relayed event %+v", got)
	}
	sub.Close()

	// A second relay: its stdin closing ends it.
	c2, done2, hangUp2 := relayOn(t, dir)
	if err := c2.Call(ctx, ipc.MethodHello, nil, nil); err != nil {
		t.Fatal(err)
	}
	hangUp2()
	select {
	case err := <-done2:
		if err != nil {
			t.Fatalf("relay ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the relay did not exit when its stdin closed")
	}
	hangUp()
	<-done
}

// --session joins stdio to one supervisor; a missing one gets an id-0
// TARGET_NOT_FOUND frame.
func TestRelayConnect(t *testing.T) {
	dir := shortDir(t)
	ipctest.Serve(t, dir, ipc.State{SessionID: "bbbbbbbbbbbb", Name: "bravo"})
	clientEnd, relayEnd, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	go func() { RelayConnect(relayEnd, relayEnd, dir, "bbbbbbbbbbbb"); relayEnd.Close() }()
	c := ipc.NewClient(clientEnd)
	defer c.Close()
	var st ipc.State
	if err := c.Call(context.Background(), ipc.MethodState, nil, &st); err != nil || st.Name != "bravo" {
		t.Fatalf("state through the relay: %+v, %v", st, err)
	}

	r, w := io.Pipe()
	out := &bytes.Buffer{}
	go w.Close()
	err = RelayConnect(r, out, dir, "cccccccccccc")
	var e *ipc.Error
	if !errors.As(err, &e) || e.Code != ipc.CodeTargetNotFound {
		t.Fatalf("missing session: %v", err)
	}
	body, ferr := ipc.ReadFrame(out, 0)
	if ferr != nil || !bytes.Contains(body, []byte("TARGET_NOT_FOUND")) {
		t.Fatalf("frame %q, %v", body, ferr)
	}
}
