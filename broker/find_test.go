//go:build linux

package broker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// standinFleet starts n stand-in supervisors in a fresh runtime dir, named
// s000…, each with its document, publishing its queue file as a
// supervisor does when facts is true.
func standinFleet(t testing.TB, n int, facts bool) (*Fleet, []*ipctest.Supervisor) {
	t.Helper()
	dir := shortDir(t)
	sups := make([]*ipctest.Supervisor, n)
	for i := range sups {
		st := ipc.State{SessionID: fmt.Sprintf("%03x%09d", i, i), Name: fmt.Sprintf("s%03d", i),
			Document: fmt.Sprintf("/work/doc%03d.md", i), Lifecycle: "running", SupPID: os.Getpid()}
		sups[i] = ipctest.Serve(t, dir, st)
		if facts {
			if err := store.WriteQueueFile(paths.QueueFile(dir, st.SessionID), st.QueueFacts()); err != nil {
				t.Fatal(err)
			}
		}
	}
	return &Fleet{RuntimeDir: dir, Timeout: FanoutTimeout, Deadline: HostDeadline}, sups
}

// connections is every connection the stand-ins accepted so far.
func connections(sups []*ipctest.Supervisor) int64 {
	var n int64
	for _, s := range sups {
		n += s.Connections()
	}
	return n
}

// act is what a verb does to one session: Open it, ask state on it.
func act(t testing.TB, f *Fleet, target string) ipc.State {
	t.Helper()
	ctx := context.Background()
	s, c, done, err := f.Open(ctx, target, "/work")
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	var st ipc.State
	if err := Call(ctx, c, ipc.MethodState, nil, &st); err != nil {
		t.Fatal(err)
	}
	if st.SessionID != s.State.SessionID || s.State.Document != st.Document {
		t.Fatalf("Open gave %+v, the session says %+v", s.State, st)
	}
	return st
}

// TestFindDialsOneSocket: acting on one of N sessions, named by its name,
// id, id prefix or document, makes one connection, to that session's
// supervisor, and removes nothing (specs/broker.md, "Finding one session").
func TestFindDialsOneSocket(t *testing.T) {
	for _, n := range []int{12, 200} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f, sups := standinFleet(t, n, true)
			// A stale socket, as a SIGKILLed supervisor leaves: a read
			// leaves it for the listings to remove.
			stale := filepath.Join(f.RuntimeDir, "deadbeef0000.sock")
			if err := testutil.LeaveStaleSocket(stale); err != nil {
				t.Fatal(err)
			}
			target := sups[n/2].State()
			for _, name := range []string{target.Name, target.SessionID, target.SessionID[:5], target.Document, "doc" + target.Document[len("/work/doc"):]} {
				before := connections(sups)
				if got := act(t, f, name); got.SessionID != target.SessionID {
					t.Fatalf("%q acted on %s, want %s", name, got.SessionID, target.SessionID)
				}
				if d := connections(sups) - before; d != 1 {
					t.Errorf("acting on %q of %d sessions made %d connections, want 1", name, n, d)
				}
			}
			if _, err := os.Lstat(stale); err != nil {
				t.Errorf("Find removed the stale socket: %v", err)
			}
		})
	}
}

// TestFindWithoutFacts: a supervisor without a queue file (it could not
// write one, or an older one) is asked for its state, and only it; a
// target the facts do not name is looked for by asking every socket, so
// the cache never hides a session; the miss lists every session.
func TestFindWithoutFacts(t *testing.T) {
	f, sups := standinFleet(t, 12, true)
	lone := ipctest.Serve(t, f.RuntimeDir, ipc.State{SessionID: "fffffffffff0", Name: "lone", SupPID: os.Getpid()})
	all := append(sups, lone)
	if got := act(t, f, "lone"); got.Name != "lone" {
		t.Fatalf("acted on %+v", got)
	}
	if lone.Connections() != 2 || connections(sups) != 0 {
		t.Fatalf("connections: %d to the one without facts (want 2: its state, the act), %d to the others (want 0)",
			lone.Connections(), connections(sups))
	}
	// A fact the cache is wrong about (a name changed since the file
	// was written): the miss is checked against the sockets.
	renamed := sups[3].State()
	renamed.Name = "renamed"
	sups[3].Set(renamed)
	if got := act(t, f, "renamed"); got.SessionID != renamed.SessionID {
		t.Fatalf("renamed: acted on %+v", got)
	}
	before := connections(all)
	_, err := f.Find(context.Background(), "nope", "/work")
	if err == nil || !strings.Contains(err.Error(), `no session matches target "nope"`) || !strings.Contains(err.Error(), "lone") {
		t.Fatalf("Find(nope) = %v", err)
	}
	if d := connections(all) - before; d != int64(len(all))+1 {
		t.Errorf("a miss made %d connections, want %d (the one without facts, then every socket)", d, len(all)+1)
	}
}

// TestOpenDistrustsFacts: a queue file that names the wrong session (a
// write not made yet, or a file another process of the user planted)
// never sends the verb there: Open confirms the session by its own state
// on its one connection, and on a mismatch asks every socket.
func TestOpenDistrustsFacts(t *testing.T) {
	f, sups := standinFleet(t, 12, true)
	victim, liar := sups[7].State(), sups[2].State()
	for id, name := range map[string]string{victim.SessionID: "zzz", liar.SessionID: victim.Name} {
		facts := victim.QueueFacts()
		if id == liar.SessionID {
			facts = liar.QueueFacts()
		}
		facts.Name = name
		if err := store.WriteQueueFile(paths.QueueFile(f.RuntimeDir, id), facts); err != nil {
			t.Fatal(err)
		}
	}
	if got := act(t, f, victim.Name); got.SessionID != victim.SessionID {
		t.Fatalf("acted on %s (%s), want %s", got.SessionID, got.Name, victim.SessionID)
	}
	if n := connections(sups); n != int64(len(sups))+2 {
		t.Errorf("%d connections, want %d: the wrong one, every socket, the right one", n, len(sups)+2)
	}
}

// BenchmarkFind is Find of one of 200 sessions, the cached facts read.
func BenchmarkFind(b *testing.B) {
	f, sups := standinFleet(b, 200, true)
	name := sups[100].State().Name
	ctx := context.Background()
	for b.Loop() {
		if _, err := f.Find(ctx, name, "/work"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(connections(sups))/float64(b.N), "conns/op")
}

// TestRouteLiveFromFacts: sup route finds a running session as Find does,
// dialling none for the match; a query the facts do not match is checked
// against every socket before a session may be started for it.
func TestRouteLiveFromFacts(t *testing.T) {
	f, sups := standinFleet(t, 12, true)
	r := &Router{RuntimeDir: f.RuntimeDir}
	live, err := r.live(context.Background(), RouteQuery{Name: "s003"}, false)
	if err != nil || len(live) != 1 || live[0].State.SessionID != sups[3].State().SessionID {
		t.Fatalf("live = %+v, %v", live, err)
	}
	if n := connections(sups); n != 0 {
		t.Fatalf("matching from the facts made %d connections", n)
	}
	renamed := sups[5].State()
	renamed.Name = "renamed"
	sups[5].Set(renamed)
	live, err = r.live(context.Background(), RouteQuery{Name: "renamed"}, false)
	if err != nil || len(live) != 1 || live[0].State.SessionID != renamed.SessionID {
		t.Fatalf("renamed: live = %+v, %v: a stale fact must not start a second session", live, err)
	}
}

// TestRouteStaleFactsRoutedAsGone: a supervisor killed with SIGKILL leaves
// its socket and queue file until its guard sweeps them. A route in that
// window matches the session from its facts, finds nothing listening, and
// routes as to no live session (here: nothing known, so it says to give
// --doc) instead of failing on the dead socket (run 62's
// TestE2ERouteBringsBackCommand); the listing removes the socket. Facts
// of a killed session that name a live one's name do not make the route
// ambiguous either.
func TestRouteStaleFactsRoutedAsGone(t *testing.T) {
	f, sups := standinFleet(t, 3, true)
	st := ipc.State{SessionID: "dead00000000", Name: "killed", Document: "/work/killed.md", Lifecycle: "running", SupPID: os.Getpid()}
	sock := plantStale(t, f.RuntimeDir, st)
	r := &Router{RuntimeDir: f.RuntimeDir, StateDir: t.TempDir(), TriggerWait: 5 * time.Second}
	_, err := r.Route(context.Background(), RouteQuery{Name: "killed"}, ipc.TriggerParams{Prompt: "hi", TriggerID: "t1"})
	if err == nil || !strings.Contains(err.Error(), "no live session matches") || strings.Contains(err.Error(), "connect to") {
		t.Fatalf("route to a killed supervisor's session: %v, want routed as gone (no live session matches …)", err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale socket is still there after the route's listing: %v", err)
	}

	// A killed session's facts naming the same as a live one: the route
	// goes to the live one, not BAD_REQUEST "2 live sessions match".
	live := sups[1]
	var got atomic.Int64
	live.Server.Handle(ipc.MethodTrigger, func(context.Context, *ipc.Request) (any, error) {
		got.Add(1)
		return ipc.TriggerResult{TriggerID: "t2", Result: ipc.OutcomeDelivered}, nil
	})
	dead := ipc.State{SessionID: "dead00000001", Name: live.State().Name, Document: "/work/other.md", Lifecycle: "running", SupPID: os.Getpid()}
	sock = plantStale(t, f.RuntimeDir, dead)
	res, err := r.Route(context.Background(), RouteQuery{Name: dead.Name}, ipc.TriggerParams{Prompt: "hi", TriggerID: "t2"})
	if err != nil || res.Session != live.State().SessionID || got.Load() != 1 {
		t.Fatalf("route to a name a killed session's facts share with a live one: %+v %v (%d triggers at the live one)", res, err, got.Load())
	}
	if _, err := os.Lstat(sock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale socket is still there after the route's listing: %v", err)
	}
}

// plantStale leaves what a SIGKILLed supervisor of st leaves in dir until
// its guard sweeps: its socket file, nothing listening, and its queue file.
func plantStale(t *testing.T, dir string, st ipc.State) string {
	t.Helper()
	sock, err := paths.Socket(dir, st.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if err := testutil.LeaveStaleSocket(sock); err != nil {
		t.Fatal(err)
	}
	if err := store.WriteQueueFile(paths.QueueFile(dir, st.SessionID), st.QueueFacts()); err != nil {
		t.Fatal(err)
	}
	return sock
}
