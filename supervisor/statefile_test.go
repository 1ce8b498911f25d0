//go:build linux

package supervisor

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// fakeStates is a state a test changes, read the way stateFile reads
// Session.State: operator_busy follows the clock.
type fakeStates struct {
	mu      sync.Mutex
	st      ipc.State
	lastKey time.Time
	quiet   time.Duration
	changes changes
}

func (f *fakeStates) state() ipc.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.st
	if !f.lastKey.IsZero() {
		st.LastInputAt = f.lastKey.UnixMilli()
		st.OperatorBusy = time.Since(f.lastKey) < f.quiet
	}
	return st
}

func (f *fakeStates) set(change func(st *ipc.State)) {
	f.mu.Lock()
	change(&f.st)
	f.mu.Unlock()
}

// TestStateFile: the file is the state, 0600 in a 0700 dir; a change on
// the change signal is written by the goroutine, one through publish at
// once; a change of the output's stamps alone waits stampGap; operator_busy
// ends with the quiet window by the clock, no change needed; a failing
// write is logged once and retried; after remove the file is gone and
// nothing brings it back.
func TestStateFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "s1.json")
	fs := &fakeStates{st: ipc.State{SessionID: "s1", Name: "a", Activity: "busy"}, quiet: 300 * time.Millisecond}
	var logs testutil.Buffer
	f := newStateFile(path, fs.state, func() time.Duration { return fs.quiet }, &fs.changes, slog.New(slog.NewTextHandler(&logs, nil)))
	read := func() ipc.State {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var st ipc.State
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		return st
	}
	f.start()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			f.remove()
		}
	})
	if st := read(); st.Activity != "busy" || st.Name != "a" {
		t.Fatalf("first write: %+v", st)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file: %v, %v; want mode 0600", fi, err)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir: %v, %v; want mode 0700", fi, err)
	}

	// Through the change signal: the goroutine writes it.
	fs.set(func(st *ipc.State) { st.Activity = "ready" })
	fs.changes.poke()
	testutil.WaitUntil(t, 5*time.Second, "the goroutine to write ready", func() bool { return read().Activity == "ready" })

	// Through publish (an event's path): written before it returns.
	fs.set(func(st *ipc.State) { st.Triggers = map[string]int{"delivered": 1} })
	f.publish()
	if st := read(); st.Triggers["delivered"] != 1 {
		t.Fatalf("after publish: %+v", st)
	}

	// The output's stamps alone wait stampGap after the last write.
	wrote := time.Now()
	fs.set(func(st *ipc.State) { st.LastOutputAt = 42 })
	if _, due := f.publish(); due <= 0 || due > stampGap {
		t.Fatalf("a stamps-only change right after a write is due in %v, want (0, %v]", due, stampGap)
	} else if st := read(); st.LastOutputAt == 42 && time.Since(wrote) < stampGap {
		t.Fatal("a stamps-only change was written at once")
	}
	fs.changes.poke()
	testutil.WaitUntil(t, 5*time.Second, "the held stamp to be written", func() bool { return read().LastOutputAt == 42 })

	// operator_busy ends by the clock: no change, no poke.
	fs.mu.Lock()
	fs.lastKey = time.Now()
	fs.mu.Unlock()
	f.publish()
	if st := read(); !st.OperatorBusy {
		t.Fatalf("after a key: %+v", st)
	}
	testutil.WaitUntil(t, 5*time.Second, "operator_busy to end with the quiet window", func() bool { return !read().OperatorBusy })

	// The dir turns into a file: the write fails, logged once however
	// often the state changes, and retried until it works again.
	dir := filepath.Dir(path)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		fs.set(func(st *ipc.State) { st.RestartCount = i + 1 })
		f.publish()
		fs.changes.poke()
	}
	if n := strings.Count(logs.String(), "state_file_failed"); n != 1 {
		t.Fatalf("%d state_file_failed lines for one failing dir, want 1:\n%s", n, logs.String())
	}
	os.Remove(dir)
	testutil.WaitUntil(t, 5*time.Second, "the retry once the dir is back", func() bool {
		_, err := os.Stat(path)
		return err == nil && read().RestartCount == 5
	})
	if !strings.Contains(logs.String(), "state_file_written") {
		t.Fatalf("no state_file_written after the failure ended:\n%s", logs.String())
	}

	f.remove()
	stopped = true
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file after remove: %v", err)
	}
	fs.set(func(st *ipc.State) { st.Activity = "busy" })
	f.publish()
	f.republish()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a change after remove brought the file back: %v", err)
	}
}
