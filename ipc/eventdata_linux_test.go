package ipc

import (
	"testing"
	"time"
)

// TestEventDecodeData: a typed event survives the socket: published by a
// server, read by the Go client into the same type, times as int64.
func TestEventDecodeData(t *testing.T) {
	ts := startServer(t, ServerConfig{Events: []string{EventTriggerProgress, EventLifecycle}}, testHandlers)
	c, err := Dial(ts.path, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sub, err := c.Subscribe(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := TriggerProgress{TriggerID: "t1", ThreadID: "default", State: ProgressDeferred, ErrorCode: CodeAgentBusy,
		Message: "the agent is busy", NextLookAt: 1764355200123, GivesUpAt: 1764355500123}
	ts.Publish(EventTriggerProgress, sent)
	ts.Publish(EventTriggerProgress, LifecycleExit{Phase: PhaseExit}) // wrong name: not sent
	ts.Publish(EventLifecycle, LifecycleExit{Phase: PhaseExit, PID: 7, Signal: "SIGKILL", Class: "crash", Health: "ok"})
	ev, err := sub.Next()
	if err != nil {
		t.Fatal(err)
	}
	var got TriggerProgress
	if err := ev.DecodeData(&got); err != nil || got != sent {
		t.Fatalf("decoded %+v (%v), sent %+v", got, err, sent)
	}
	ev, err = sub.Next()
	if err != nil {
		t.Fatal(err)
	}
	var exit LifecycleExit
	if err := ev.DecodeData(&exit); err != nil || ev.Event != EventLifecycle || exit.PID != 7 || exit.Code != 0 || ev.Data["code"] != int64(0) {
		t.Fatalf("second event %s %+v (%v), data %v: want the exit (the mislabelled one is not sent)", ev.Event, exit, err, ev.Data)
	}
}
