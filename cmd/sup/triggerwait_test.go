//go:build linux

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestCurrentUser: a requester is never a bare "cli:" — without $USER the
// passwd entry (or the uid) names the user.
func TestCurrentUser(t *testing.T) {
	t.Setenv("USER", "")
	os.Unsetenv("USER")
	if u := view.CurrentUser(); u == "" {
		t.Fatal("currentUser is empty without $USER")
	}
	t.Setenv("USER", "somebody")
	if u := view.CurrentUser(); u != "somebody" {
		t.Fatalf("currentUser = %q with USER=somebody", u)
	}
}

// TestPrintExplainNoSignal: before any signal, explain says so in words,
// not "unknown () since never" and an empty "decided by".
func TestPrintExplainNoSignal(t *testing.T) {
	var b bytes.Buffer
	printExplain(&b, ipc.ExplainResult{Activity: "unknown", Lifecycle: "starting"}, time.Now())
	out := b.String()
	if !strings.HasPrefix(out, "activity unknown: no signal yet\n") || strings.Contains(out, "()") || strings.Contains(out, "decided by") {
		t.Fatalf("explain printed:\n%s", out)
	}
}

// TestPrintPending: sup pending lists each pending trigger with its
// state and why.
func TestPrintPending(t *testing.T) {
	var b bytes.Buffer
	printPending(&b, ipc.PendingTriggers{})
	if b.String() != "no pending triggers\n" {
		t.Fatalf("empty: %q", b.String())
	}
	b.Reset()
	printPending(&b, ipc.PendingTriggers{Triggers: []ipc.PendingTrigger{{TriggerID: "t-1", ThreadID: "default", State: "deferred",
		QueuedAt: 1, Message: "the human is typing in the pane", Requester: "cli:me", PromptHead: "make test"}}})
	for _, want := range []string{"ID", "t-1", "deferred", "the human is typing in the pane", "cli:me", `"make test"`} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("no %q in\n%s", want, b.String())
		}
	}
}

// TestPrintSessionsCells: every cell holds a word (a restarting session
// without an activity shows "-", so the columns stay put), and panes of
// two tmux servers say which server's they are.
func TestPrintSessionsCells(t *testing.T) {
	ss := []broker.Listing{
		{State: ipc.State{SessionID: "aaaaaaaaaaaa", Name: "alpha", Profile: "claude", Lifecycle: "running", Activity: "ready",
			TmuxPane: "%2", TmuxSocket: "/tmp/tmux-0/default"}},
		{State: ipc.State{SessionID: "bbbbbbbbbbbb", Name: "beta", Profile: "shell", Lifecycle: "restarting",
			TmuxPane: "%2", TmuxSocket: "/tmp/tmux-0/sup-demo"}},
	}
	var b bytes.Buffer
	if err := printSessions(&b, ss, time.Now()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	for _, l := range lines {
		if n := len(strings.Fields(l)); n != 8 {
			t.Errorf("%d fields in %q, want 8", n, l)
		}
	}
	if !strings.Contains(lines[1], "default:%2") || !strings.Contains(lines[2], "sup-demo:%2") {
		t.Errorf("panes of two servers:\n%s", b.String())
	}
	// One server: the plain pane id.
	b.Reset()
	_ = printSessions(&b, ss[:1], time.Now())
	if !strings.HasSuffix(strings.TrimSpace(b.String()), " %2") {
		t.Errorf("one server:\n%s", b.String())
	}
}

// TestPrintPendingHostile: `sup pending` prints what other clients and the
// agent wrote (a requester, a thread id, a deferral's message that may
// quote the agent's question): every cell goes through the sanitiser.
func TestPrintPendingHostile(t *testing.T) {
	for _, h := range testutil.Hostile {
		var buf bytes.Buffer
		printPending(&buf, ipc.PendingTriggers{Triggers: []ipc.PendingTrigger{{
			TriggerID: "t1", ThreadID: h.Text, Requester: h.Text, State: "deferred", Message: h.Text, PromptHead: h.Text,
		}}})
		if raw := testutil.RawControl(buf.String()); raw != "" {
			t.Errorf("%s: a raw control reached the terminal: %q", h.Name, raw)
		}
		if n := strings.Count(buf.String(), "\n"); n != 2 {
			t.Errorf("%s: %d lines, want the header and one row:\n%s", h.Name, n, buf.String())
		}
	}
}
