//go:build linux

package web

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

// TestRefusalLogRate: a burst of refusals is one line a second, the next
// line counting those it did not log.
func TestRefusalLogRate(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(1000, 0)
	r := &refusalLog{log: slog.New(slog.NewTextHandler(&buf, nil)), now: func() time.Time { return now }, interval: time.Second}
	for range 50 {
		r.warn("web: refused a connection", "why", "x")
		now = now.Add(10 * time.Millisecond)
	}
	// 50 refusals over 0.5 s: one line.
	if n := strings.Count(buf.String(), "web: refused"); n != 1 {
		t.Fatalf("%d lines for a 0.5 s burst, want 1:\n%s", n, buf.String())
	}
	now = now.Add(time.Second)
	r.warn("web: refused a connection", "why", "x")
	if got := buf.String(); strings.Count(got, "web: refused") != 2 || !strings.Contains(got, "refused_unlogged=49") {
		t.Fatalf("after a second: want a second line counting the 49 unlogged:\n%s", got)
	}
}

// TestSocketCaller: a connection this process makes is found among its
// fds and is the operator's (the test does not run in an agent's tree);
// a socket no process holds is an error, not a guess.
func TestSocketCaller(t *testing.T) {
	r := startRig(t, shortDir(t))
	c, err := net.Dial("tcp", r.s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// c's own end: its local address is the client's.
	uid, inode, err := peerUID(swapped{c})
	if err != nil || uid != r.s.uid || inode == 0 {
		t.Fatalf("peerUID: uid %d inode %d %v; want uid %d", uid, inode, err, r.s.uid)
	}
	who, err := r.s.socketCaller(inode, time.Now().Add(peerCheckTimeout))
	if err != nil || !who.IsOperator() {
		t.Fatalf("this process's connection: %+v %v, want the operator", who, err)
	}
	if _, err := r.s.socketCaller(1<<40, time.Now().Add(peerCheckTimeout)); err == nil || !strings.Contains(err.Error(), "no process of uid") {
		t.Fatalf("an inode nobody holds: %v, want an error saying so", err)
	}
}

// swapped is a client conn seen as the server's end: peerUID looks up the
// socket whose local address is RemoteAddr.
type swapped struct{ net.Conn }

func (s swapped) RemoteAddr() net.Addr { return s.Conn.LocalAddr() }
func (s swapped) LocalAddr() net.Addr  { return s.Conn.RemoteAddr() }

// BenchmarkPeerCheck is one loopback connection's check as the operator:
// the socket lookup, the /proc scan for its holder and the ancestry walk.
func BenchmarkPeerCheck(b *testing.B) {
	r := startRig(b, shortDir(b))
	c, err := net.Dial("tcp", r.s.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for b.Loop() {
		if v := r.s.checkPeer(swapped{c}); v.close || v.refuse != "" {
			b.Fatalf("refused: %+v", v)
		}
	}
}
