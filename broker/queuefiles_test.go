//go:build linux

package broker

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
)

// listenAt binds a real socket at dir/<id>.sock, closed at cleanup.
func listenAt(t testing.TB, dir, id string) {
	t.Helper()
	ln, err := ipc.Listen(filepath.Join(dir, id+".sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
}

// writeFacts writes dir/queue/<name> as JSON (or raw when facts is a string).
func writeFacts(t testing.TB, dir, name string, facts any) string {
	t.Helper()
	data, ok := facts.(string)
	if !ok {
		b, err := json.Marshal(facts)
		if err != nil {
			t.Fatal(err)
		}
		data = string(b)
	}
	if err := os.MkdirAll(paths.QueueDir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(paths.QueueDir(dir), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// deadPID is the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// TestReadQueueFiles: live sessions' facts come back and order like the
// sockets' answers would; files of gone supervisors (socket missing, or
// sup_pid dead) are dropped and removed; garbage is skipped and removed
// only when its supervisor is gone; temporary and foreign files are left
// alone; a missing dir is empty.
func TestReadQueueFiles(t *testing.T) {
	dir := shortDir(t)
	if got, err := ReadQueueFiles(dir); err != nil || len(got) != 0 {
		t.Fatalf("no queue dir: %v, %v; want nothing", got, err)
	}
	me := os.Getpid()
	facts := func(id string, waiting, skip int64) ipc.QueueFacts {
		return ipc.QueueFacts{SessionID: id, Name: "n-" + id, Activity: "ready", Reason: "stopped",
			WaitingSince: waiting, SkipUntil: skip, SupPID: me, Lifecycle: "running"}
	}
	for _, id := range []string{"a", "b", "busy", "cool", "deadpid", "garbage", "other"} {
		listenAt(t, dir, id)
	}
	now := time.UnixMilli(10_000)
	writeFacts(t, dir, "a.json", facts("a", 2000, 0))
	writeFacts(t, dir, "b.json", facts("b", 1000, 0))
	writeFacts(t, dir, "busy.json", facts("busy", 0, 0))
	writeFacts(t, dir, "cool.json", facts("cool", 500, 20_000))
	noSock := writeFacts(t, dir, "nosock.json", facts("nosock", 100, 0))
	dead := facts("deadpid", 100, 0)
	dead.SupPID = deadPID(t)
	deadFile := writeFacts(t, dir, "deadpid.json", dead)
	liveGarbage := writeFacts(t, dir, "garbage.json", "{not json")
	goneGarbage := writeFacts(t, dir, "gonegarbage.json", "\x00\x01")
	misnamed := writeFacts(t, dir, "other.json", facts("a", 100, 0))
	tmp := writeFacts(t, dir, ".a.json.123.tmp", facts("a", 1, 0))
	foreign := writeFacts(t, dir, "README", "hello")

	sessions, err := ReadQueueFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range Queue(sessions, now) {
		s := e.State.SessionID
		if e.Cooling {
			s += "*"
		}
		if e.Socket != filepath.Join(dir, e.State.SessionID+".sock") || e.State.Name != "n-"+e.State.SessionID || e.State.SupPID != me {
			t.Errorf("entry %+v: socket or facts not carried over", e)
		}
		got = append(got, s)
	}
	if strings.Join(got, " ") != "b a cool*" {
		t.Errorf("queue %v, want [b a cool*]", got)
	}
	if len(sessions) != 4 {
		t.Errorf("%d sessions, want 4 (a, b, busy, cool)", len(sessions))
	}
	for p, want := range map[string]bool{noSock: false, deadFile: false, goneGarbage: false,
		liveGarbage: true, misnamed: true, tmp: true, foreign: true} {
		if exists(p) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(p), !want, want)
		}
	}
}

// BenchmarkStatusLine200 is `sup status-line`'s work after process start:
// read 200 queue files, check each supervisor is alive, order the queue.
func BenchmarkStatusLine200(b *testing.B) {
	dir := shortDir(b)
	for i := range 200 {
		id := fmt.Sprintf("%012x", i)
		listenAt(b, dir, id)
		writeFacts(b, dir, id+".json", ipc.QueueFacts{SessionID: id, Name: "agent-" + id, Activity: "ready",
			Reason: "stopped", WaitingSince: int64(i + 1), SupPID: os.Getpid(), Lifecycle: "running"})
	}
	for b.Loop() {
		sessions, err := ReadQueueFiles(dir)
		if err != nil || len(sessions) != 200 {
			b.Fatalf("%d sessions, %v", len(sessions), err)
		}
		if q := Queue(sessions, time.Now()); Eligible(q) != 200 {
			b.Fatalf("queue of %d", len(q))
		}
	}
}
