//go:build linux

package pick

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/ipc"
)

// TestPickHosts: the picker keeps its selection by host and id (two hosts
// may hold the same id), shows the host column once a remote session is
// listed, and the hosts that did not answer as lines of their own.
func TestPickHosts(t *testing.T) {
	entry := func(host, name string) broker.Entry {
		return broker.Entry{Listing: broker.Listing{Host: host, Socket: "/rt/same.sock",
			State: ipc.State{SessionID: "same", Name: name, Reason: "permission", WaitingSince: 1}}}
	}
	m := &pickModel{ctx: context.Background()}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	q := []broker.Entry{entry("", "alpha"), entry("gpu", "bravo")}
	down := &broker.HostError{Host: "vm", Status: broker.HostAuthFailed, Reason: "Permission denied (publickey)."}
	m.Update(queueMsg{q: q, hostErrs: []error{down}})
	v := m.View()
	local := broker.LocalHostName()
	for _, want := range []string{"> " + local, "  gpu", "host vm: auth failed: Permission denied (publickey)."} {
		if !strings.Contains(v, want) {
			t.Fatalf("no %q in\n%s", want, v)
		}
	}
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	if m.selID != "gpu:same" {
		t.Fatalf("selection %q after down, want gpu:same", m.selID)
	}
	// A refresh in another order keeps the remote one selected.
	m.Update(queueMsg{q: []broker.Entry{q[1], q[0]}})
	if i, _ := m.selected(); m.queue[i].Host != "gpu" {
		t.Fatalf("the selection moved to %+v on refresh", m.queue[i].Listing)
	}
	if strings.Contains(m.View(), "auth failed") {
		t.Errorf("the host answered again, its line stays:\n%s", m.View())
	}
	m.Update(queueMsg{q: []broker.Entry{entry("", "alpha")}, err: errors.New("boom")})
	if v := m.View(); !strings.Contains(v, "> alpha") || strings.Contains(v, "gpu") || !strings.Contains(v, "boom") {
		t.Errorf("this host only: want no host column, and the error shown:\n%s", v)
	}
}

// TestPickKeysInOneRead: keys that arrive in one read (`tmux send-keys -l
// jj`, fast typing) each count, as in the dashboard: jj moves two rows,
// then k one back.
func TestPickKeysInOneRead(t *testing.T) {
	var q []broker.Entry
	for _, name := range []string{"alpha", "bravo", "charlie"} {
		q = append(q, broker.Entry{Listing: broker.Listing{Socket: "/rt/" + name + ".sock",
			State: ipc.State{SessionID: name, Name: name, Reason: "permission", WaitingSince: 1}}})
	}
	m := &pickModel{ctx: context.Background()}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(queueMsg{q: q})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if i, _ := m.selected(); m.queue[i].State.Name != "charlie" {
		t.Fatalf("after jj in one read the selection is %s, want charlie", m.queue[i].State.Name)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("k")})
	if i, _ := m.selected(); m.queue[i].State.Name != "bravo" {
		t.Fatalf("after k the selection is %s, want bravo", m.queue[i].State.Name)
	}
}

// TestPickAskedAlways: on a question the finished turn asked, a refuses
// (it would type the word "always" as the human's turn) and says how to
// answer; nothing is sent.
func TestPickAskedAlways(t *testing.T) {
	m := &pickModel{ctx: context.Background()}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(queueMsg{q: []broker.Entry{{Listing: broker.Listing{Socket: "/rt/doc.sock",
		State: ipc.State{SessionID: "doc", Name: "doc", Activity: "ready", Reason: "asked", PromptID: "p1", WaitingSince: 1}}}}})
	if _, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")}); cmd != nil {
		t.Fatal("a on a question sent an answer")
	}
	if !strings.Contains(m.status, "sup answer doc TEXT") {
		t.Fatalf("status %q does not say how to answer", m.status)
	}
}
