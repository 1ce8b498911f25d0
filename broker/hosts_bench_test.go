//go:build linux

package broker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// serveAs is an in-process supervisor stand-in answering state, owned by
// uid: its socket in that user's runtime dir, its peer check for that
// user, so the remote user's relay reaches it as it would a real one.
func serveAs(b testing.TB, dir string, uid, gid int, st ipc.State) {
	b.Helper()
	path, err := paths.Socket(dir, st.SessionID)
	if err != nil {
		b.Fatal(err)
	}
	ln, err := ipc.Listen(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.Chown(path, uid, gid); err != nil {
		b.Fatal(err)
	}
	srv := ipc.NewServer(ipc.ServerConfig{UID: uid})
	srv.Handle(ipc.MethodState, func(context.Context, *ipc.Request) (any, error) { return st, nil })
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Shutdown(time.Second) })
}

// BenchmarkHostsQueue3x50 is `sup queue --json` (the whole process) over
// three hosts of 50 supervisors each, connections warm: this host's 50
// stand-ins, and two host entries (two ControlMasters, two relays) of
// the second user behind the test's sshd, whose 50 stand-ins each relay
// lists. It reports the median and p95 of the warm calls, the first
// (cold: ssh connection and relay start) call, and `sup status-line`'s
// median and p95 with those hosts' caches.
func BenchmarkHostsQueue3x50(b *testing.B) {
	rig := testutil.NewRig(b, "")
	r := newRemoteHost(b, rig)
	rig.Write("config/sup/config.yaml", fmt.Sprintf("hosts:\n  - {name: remote, ssh: remote, sup: %[1]s}\n  - {name: remote2, ssh: remote, sup: %[1]s}\n", r.bin+"/sup"))
	remoteDir := fmt.Sprintf("/tmp/sup-%d", r.uid)
	if err := os.MkdirAll(remoteDir, 0o700); err != nil {
		b.Fatal(err)
	}
	os.Chown(remoteDir, r.uid, r.gid)
	for i := range 50 {
		id := fmt.Sprintf("%012x", i)
		st := ipc.State{SessionID: id, Name: "agent-" + id, Lifecycle: "running", Activity: "ready", WaitingSince: int64(i + 1)}
		serveAs(b, rig.Env["SUP_RUNTIME_DIR"], os.Geteuid(), os.Getegid(), st)
		writeQueueFile(b, rig.Env["SUP_RUNTIME_DIR"], st)
		st.SessionID, st.Name = fmt.Sprintf("%012x", 1000+i), fmt.Sprintf("remote-%d", i)
		serveAs(b, remoteDir, r.uid, r.gid, st)
	}
	queue := func() time.Duration {
		cmd := exec.Command(rig.Bins.Sup, "queue", "--json")
		cmd.Env = rig.Environ()
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		if err != nil || strings.Count(string(out), `"position"`) != 150 {
			b.Fatalf("sup queue: %v: %d entries", err, strings.Count(string(out), `"position"`))
		}
		return took
	}
	cold := queue()
	var warm []time.Duration
	for b.Loop() {
		warm = append(warm, queue())
	}
	var line []time.Duration
	for range 50 {
		cmd := exec.Command(rig.Bins.Sup, "status-line")
		cmd.Env = rig.Environ()
		start := time.Now()
		out, err := cmd.Output()
		line = append(line, time.Since(start))
		if err != nil || !strings.Contains(string(out), "150 stuck") || !strings.Contains(string(out), "remote") {
			b.Fatalf("status-line %q: %v", out, err)
		}
	}
	b.ReportMetric(ms(cold), "cold-ms")
	b.ReportMetric(ms(pct(warm, 50)), "median-ms")
	b.ReportMetric(ms(pct(warm, 95)), "p95-ms")
	b.ReportMetric(ms(pct(line, 50)), "statusline-median-ms")
	b.ReportMetric(ms(pct(line, 95)), "statusline-p95-ms")
	b.ReportMetric(0, "ns/op")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// writeQueueFile publishes a local stand-in's queue facts, as a
// supervisor does, for the status line.
func writeQueueFile(b testing.TB, dir string, st ipc.State) {
	b.Helper()
	os.MkdirAll(paths.QueueDir(dir), 0o700)
	f := ipc.QueueFacts{SessionID: st.SessionID, Name: st.Name, Activity: st.Activity, WaitingSince: st.WaitingSince, SupPID: os.Getpid(), Lifecycle: st.Lifecycle}
	data, _ := json.Marshal(f)
	if err := os.WriteFile(filepath.Join(paths.QueueDir(dir), st.SessionID+".json"), data, 0o600); err != nil {
		b.Fatal(err)
	}
}
