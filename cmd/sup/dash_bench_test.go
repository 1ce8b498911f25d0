//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// BenchmarkDashIdle50 measures `sup dash` in a real tmux pane watching 50
// supervisors: its CPU time and context switches (wake-ups) over an idle
// window (30 s; SUP_DASH_IDLE_WINDOW changes it), then its update latency,
// from an activity event to the row on screen (capture-pane), median of
// 20. In-process servers stand in for the supervisors: idle agents publish
// nothing, so the dashboard's own wake-ups are what is measured.
//
//	go test ./cmd/sup -run '^$' -bench DashIdle50 -benchtime 1x
func BenchmarkDashIdle50(b *testing.B) {
	window := 30 * time.Second
	if v := os.Getenv("SUP_DASH_IDLE_WINDOW"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("SUP_DASH_IDLE_WINDOW=%q: %v", v, err)
		}
		window = d
	}
	bins := testutil.Build(b)
	dir := b.TempDir()
	env := testutil.SupEnv(b, bins, dir)
	// A runtime dir of its own inside: the dashboard watches the dir's
	// parent for its removal, and /tmp itself is busy with other programs.
	env["SUP_RUNTIME_DIR"] = filepath.Join(env["SUP_RUNTIME_DIR"], "rt")
	if err := os.Mkdir(env["SUP_RUNTIME_DIR"], 0o700); err != nil {
		b.Fatal(err)
	}
	started := time.Now().Add(-2 * time.Hour).UnixMilli() // ages change once a minute
	var servers []*ipctest.Supervisor
	for i := range 50 {
		servers = append(servers, ipctest.Serve(b, env["SUP_RUNTIME_DIR"], ipc.State{
			SessionID: fmt.Sprintf("%012x", i), Name: fmt.Sprintf("agent%02d", i), Activity: "busy",
			Lifecycle: "running", Health: "healthy", StartedAt: started,
		}))
	}
	tm := testutil.NewTmux(b)
	pane := tm.NewWindowDir(dir, env, bins.Sup, "dash")
	tm.WaitFor(b, pane, "50 sessions", 20*time.Second)
	pid := tm.PanePID(pane)

	for b.Loop() {
		time.Sleep(time.Second) // the first frames settle
		cpu0, sw0 := procCPU(b, pid)
		time.Sleep(window)
		cpu1, sw1 := procCPU(b, pid)
		b.ReportMetric(float64(cpu1-cpu0)*10, "cpu-ms/window") // clock ticks are 10 ms
		b.ReportMetric(float64(sw1-sw0)/window.Seconds(), "wakeups/s")

		var lat []time.Duration
		for i := range 20 {
			s := servers[i]
			mark := fmt.Sprintf("mk%d-%d", i, time.Now().UnixNano()%1e6)
			t0 := time.Now()
			st := s.State()
			st.Summary = mark
			s.Set(st)
			for !strings.Contains(tm.Capture(pane), mark) {
				if time.Since(t0) > 10*time.Second {
					b.Fatalf("%s never showed on screen", mark)
				}
				time.Sleep(time.Millisecond)
			}
			lat = append(lat, time.Since(t0))
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "update-ms-median")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "update-ms-max")
	}
}

// procCPU is a process's CPU time in clock ticks (user + system, all
// threads) and its threads' context switches, voluntary and not.
func procCPU(b *testing.B, pid int) (ticks, switches int64) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // the thread exited meanwhile
		}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				switches += n
			}
		}
	}
	return ut + st, switches
}
