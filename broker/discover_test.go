//go:build linux

package broker

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// serve answers state with st on a socket in dir, and any extra methods.
func serve(t testing.TB, dir string, st ipc.State, extra ...method) string {
	t.Helper()
	s := ipctest.Serve(t, dir, st)
	for _, m := range extra {
		s.Server.Handle(m.name, m.h)
	}
	return s.Socket
}

// method is one extra method a test server answers.
type method struct {
	name string
	h    ipc.HandlerFunc
}

func shortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sup-disc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestDiscover: live sockets answer, sorted by name; a stale socket (a
// bound file nobody listens on) is removed; a socket that accepts but
// never answers is reported after the timeout without holding up the rest;
// other files are ignored; a missing dir is empty.
func TestDiscover(t *testing.T) {
	dir := shortDir(t)
	serve(t, dir, ipc.State{SessionID: "bbbb", Name: "beta"})
	serve(t, dir, ipc.State{SessionID: "aaaa", Name: "alpha"})
	stale := filepath.Join(dir, "dead.sock")
	if err := testutil.LeaveStaleSocket(stale); err != nil {
		t.Fatal(err)
	}
	mute := filepath.Join(dir, "mute.sock")
	ml, err := net.Listen("unix", mute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ml.Close() })
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	res, err := Discover(context.Background(), dir, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Discover took %v with one mute socket and a 300ms timeout", took)
	}
	if len(res.Sessions) != 2 || res.Sessions[0].State.Name != "alpha" || res.Sessions[1].State.Name != "beta" {
		t.Fatalf("sessions %+v, want alpha then beta", res.Sessions)
	}
	if len(res.Cleaned) != 1 || res.Cleaned[0] != stale {
		t.Fatalf("cleaned %v, want %s", res.Cleaned, stale)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale socket still there: %v", err)
	}
	if len(res.Errors) != 1 || res.Errors[0].Socket != mute {
		t.Fatalf("errors %+v, want the mute socket", res.Errors)
	}
	if res, err := Discover(context.Background(), filepath.Join(dir, "nope"), time.Second); err != nil || len(res.Sessions) != 0 {
		t.Fatalf("missing dir: %+v, %v", res, err)
	}
}

func TestFindTarget(t *testing.T) {
	ss := []Listing{
		{State: ipc.State{SessionID: "abc123", Name: "rev", Document: "/p/rev.md"}},
		{State: ipc.State{SessionID: "abd456", Name: "dev", Document: "/p/dev.md"}},
		{State: ipc.State{SessionID: "fff000", Name: "abc123x", Document: "/q/x.md"}},
	}
	cases := []struct{ target, cwd, want, err string }{
		{"abc123", "/", "abc123", ""},
		{"dev", "/", "abd456", ""},
		{"rev.md", "/p", "abc123", ""},
		{"/q/x.md", "/", "fff000", ""},
		{"ff", "/", "fff000", ""},
		{"ab", "/", "", "ambiguous: it matches 2 sessions"},
		{"zzz", "/", "", `no session matches target "zzz"`},
		{"", "/", "", "missing TARGET"},
	}
	for _, c := range cases {
		s, err := FindTarget(ss, c.target, c.cwd)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("FindTarget(%q): %v, want an error with %q", c.target, err, c.err)
		case c.err == "" && (err != nil || s.State.SessionID != c.want):
			t.Errorf("FindTarget(%q) = %s, %v; want %s", c.target, s.State.SessionID, err, c.want)
		}
	}
}
