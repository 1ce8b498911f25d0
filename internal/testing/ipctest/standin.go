//go:build linux

// Package ipctest is the ipc side of tests against supervisors: in-process
// stand-ins (the real ipc server on a real socket, answering state and
// whatever a test adds, publishing events) for tests and benchmarks of
// the broker's clients where the agents themselves do not matter, and the
// calls a test makes to a live supervisor (calls.go). testutil's Rig runs
// the live supervisors; it cannot import ipc, whose own tests use it.
package ipctest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
)

// Events are the event names a stand-in publishes, as a supervisor's.
var Events = []string{"activity", "client", "lifecycle", "trigger"}

// Supervisor is one stand-in: its socket and its current state.
type Supervisor struct {
	Socket string
	Server *ipc.Server
	state  atomic.Pointer[ipc.State]
	conns  atomic.Int64
}

// Serve listens on dir/<st.SessionID>.sock and answers state with st
// until the test ends.
func Serve(t testing.TB, dir string, st ipc.State) *Supervisor {
	t.Helper()
	path, err := paths.Socket(dir, st.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := ipc.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &Supervisor{Socket: path}
	s.Server = ipc.NewServer(ipc.ServerConfig{Events: Events, OnClient: func(ev ipc.ClientEvent) {
		if _, ended := ev.(ipc.ClientDisconnect); !ended {
			s.conns.Add(1) // admitted or refused: accepted either way
		}
	}})
	s.state.Store(&st)
	s.Server.Handle(ipc.MethodState, func(context.Context, *ipc.Request) (any, error) { return s.State(), nil })
	go s.Server.Serve(ln)
	t.Cleanup(func() { s.Server.Shutdown(time.Second) })
	return s
}

// Connections is how many connections the stand-in accepted so far.
func (s *Supervisor) Connections() int64 { return s.conns.Load() }

// State is what state answers now.
func (s *Supervisor) State() ipc.State { return *s.state.Load() }

// Set changes the state and publishes an activity event, as a supervisor
// does when its agent's activity or summary changes.
func (s *Supervisor) Set(st ipc.State) {
	s.state.Store(&st)
	s.Server.Publish(ipc.EventActivity, ipc.ActivityEvent{Activity: st.Activity, Reason: st.Reason, Summary: st.Summary,
		WaitingSince: st.WaitingSince, SkipUntil: st.SkipUntil})
}
