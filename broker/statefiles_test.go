//go:build linux

package broker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

func writeState(t *testing.T, dir string, st ipc.State) {
	t.Helper()
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.WriteStateFile(paths.StateFile(dir, st.SessionID), data); err != nil {
		t.Fatal(err)
	}
}

// TestListReadsStateFiles: List takes each live supervisor's
// state from its state file and dials none of them; it asks the socket of
// a session whose file is missing, unreadable, over its bound, names
// another session or a dead pid; a file without a socket is removed, and a
// stale socket with its file goes by the stale rule, its files with it.
// Discover (what acts, or offers a decision) and Find's second look
// still ask every socket.
func TestListReadsStateFiles(t *testing.T) {
	dir := shortDir(t)
	me := os.Getpid()
	fromFile := ipc.State{SessionID: "aaaa", Name: "alpha", SupPID: me, Activity: "ready", PromptDetail: string(make([]byte, 40<<10))}
	a := ipctest.Serve(t, dir, ipc.State{SessionID: "aaaa", Name: "alpha-socket", SupPID: me})
	writeState(t, dir, fromFile)

	asked := map[string]*ipctest.Supervisor{}
	for id, file := range map[string]func(){
		"bbbb": func() {}, // no file yet (an older sup, or not written yet)
		"cccc": func() { writeState(t, dir, ipc.State{SessionID: "cccc", Name: "dead-pid", SupPID: deadPID(t)}) },
		"dddd": func() { writeState(t, dir, ipc.State{SessionID: "zzzz", Name: "other", SupPID: me}) }, // names another session
		"eeee": func() {
			os.MkdirAll(paths.StateFileDir(dir), 0o700)
			os.WriteFile(paths.StateFile(dir, "eeee"), []byte("{not json"), 0o600)
		},
		"gggg": func() { // a FIFO must not hang the listing
			os.MkdirAll(paths.StateFileDir(dir), 0o700)
			if err := syscall.Mkfifo(paths.StateFile(dir, "gggg"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"ffff": func() {
			big := append([]byte(`{"session_id":"ffff","sup_pid":1,"summary":"`), make([]byte, maxStateFile)...)
			os.WriteFile(paths.StateFile(dir, "ffff"), big, 0o600)
		},
	} {
		asked[id] = ipctest.Serve(t, dir, ipc.State{SessionID: id, Name: id + "-socket", SupPID: me})
		file()
	}
	// dddd's file is really zzzz's path: move it under dddd's name.
	if err := os.Rename(paths.StateFile(dir, "zzzz"), paths.StateFile(dir, "dddd")); err != nil {
		t.Fatal(err)
	}
	// A plain file named like a socket, with a live-looking state file:
	// no session from the file (the "socket" is dialled and fails).
	if err := os.WriteFile(filepath.Join(dir, "hhhh.sock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	writeState(t, dir, ipc.State{SessionID: "hhhh", Name: "phantom", SupPID: me})
	orphan := ipc.State{SessionID: "9999", Name: "orphan", SupPID: me}
	writeState(t, dir, orphan)
	stale := filepath.Join(dir, "dead.sock")
	writeState(t, dir, ipc.State{SessionID: "dead", Name: "dead", SupPID: deadPID(t)})
	if err := testutil.LeaveStaleSocket(stale); err != nil {
		t.Fatal(err)
	}

	res, err := List(context.Background(), dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]ipc.State{}
	for _, s := range res.Sessions {
		byID[s.State.SessionID] = s.State
	}
	if len(byID) != 7 || byID["aaaa"].Name != "alpha" || len(byID["aaaa"].PromptDetail) != 40<<10 {
		t.Fatalf("sessions %v, want aaaa from its file (alpha, with its 40 KiB detail) and six from their sockets", res.Sessions)
	}
	if n := a.Connections(); n != 0 {
		t.Fatalf("alpha's socket was dialled %d times; its state file says everything", n)
	}
	for id, s := range asked {
		if byID[id].Name != id+"-socket" || s.Connections() != 1 {
			t.Errorf("%s: listed as %q after %d connections; want its socket's state, asked once", id, byID[id].Name, s.Connections())
		}
	}
	if _, ok := byID["hhhh"]; ok || !hasError(res, "hhhh.sock") {
		t.Errorf("a plain file named hhhh.sock: listed %v, errors %v; want no session and its dial's error", byID["hhhh"], res.Errors)
	}
	if _, err := os.Stat(paths.StateFile(dir, "9999")); !os.IsNotExist(err) {
		t.Errorf("the state file of a session with no socket is still there: %v", err)
	}
	if len(res.Cleaned) != 1 || res.Cleaned[0] != stale {
		t.Errorf("cleaned %v, want %s", res.Cleaned, stale)
	}
	if _, err := os.Stat(paths.StateFile(dir, "dead")); !os.IsNotExist(err) {
		t.Errorf("the stale socket's state file is still there: %v", err)
	}

	// The reads that must ask the supervisors themselves still do.
	for i, read := range []func() (Result, error){
		func() (Result, error) { return Discover(context.Background(), dir, time.Second) },
		func() (Result, error) { return discover(context.Background(), dir, time.Second, nil, false, false) },
	} {
		before := a.Connections()
		res, err := read()
		if err != nil {
			t.Fatal(err)
		}
		if a.Connections() != before+1 || res.Sessions[0].State.Name != "alpha-socket" {
			t.Fatalf("read %d did not ask alpha's socket: %v", i, res.Sessions[0].State)
		}
	}
}

// TestSubdirSymlinkRefused: a symlink in the state or queue dir's place
// (an agent's plant) is never followed: List asks the sockets instead,
// the status line's read fails naming it, and no file where it points is
// read or removed. A state path that is a file, not a dir, is the same.
func TestSubdirSymlinkRefused(t *testing.T) {
	dir := shortDir(t)
	a := ipctest.Serve(t, dir, ipc.State{SessionID: "aaaa", Name: "alpha", SupPID: os.Getpid()})
	target := t.TempDir()
	keep := []string{"config.json", "aaaa.json"}
	for _, n := range keep {
		if err := os.WriteFile(filepath.Join(target, n), []byte(`{"session_id":"aaaa","name":"forged","sup_pid":1}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range []string{paths.StateFileDir(dir), paths.QueueDir(dir)} {
		if err := os.Symlink(target, sub); err != nil {
			t.Fatal(err)
		}
	}
	res, err := List(context.Background(), dir, time.Second)
	if err != nil || len(res.Sessions) != 1 || res.Sessions[0].State.Name != "alpha" || a.Connections() != 1 {
		t.Fatalf("List through a symlinked state dir: %v, %v after %d connections; want alpha from its socket", res.Sessions, err, a.Connections())
	}
	if _, err := ReadQueueFiles(dir); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("the status line's read through a symlinked queue dir: %v", err)
	}
	for _, n := range keep {
		if _, err := os.Stat(filepath.Join(target, n)); err != nil {
			t.Errorf("%s where the symlink points: %v", n, err)
		}
	}
	// A file where the state dir should be.
	os.Remove(paths.StateFileDir(dir))
	if err := os.WriteFile(paths.StateFileDir(dir), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := List(context.Background(), dir, time.Second); err != nil || len(res.Sessions) != 1 {
		t.Fatalf("List with a file for a state dir: %v, %v", res.Sessions, err)
	}
}

func hasError(res Result, socket string) bool {
	for _, e := range res.Errors {
		if filepath.Base(e.Socket) == socket {
			return true
		}
	}
	return false
}
