//go:build linux

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// timeCommand runs `sup args...` n times and returns each run's wall time
// in ms and the first run's output.
func (e *benchEnv) timeCommand(n int, args ...string) ([]float64, string) {
	wall, _, first := e.timeCommandCPU(n, args...)
	return wall, first
}

// timeCommandCPU is timeCommand with each run's CPU time (user + system,
// ms): on a shared machine the wall time carries the others' load, the
// CPU time much less of it.
func (e *benchEnv) timeCommandCPU(n int, args ...string) (wall, cpu []float64, first string) {
	for i := range n {
		cmd := e.command(args...)
		t0 := time.Now()
		b, err := cmd.Output()
		wall = append(wall, ms(time.Since(t0)))
		if err != nil {
			e.t.Fatalf("sup %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		cpu = append(cpu, ms(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()))
		if i == 0 {
			first = string(b)
		}
	}
	return wall, cpu, first
}

// cpuNote says a command's CPU time beside its wall time, and the load.
func cpuNote(cpu []float64) string {
	return fmt.Sprintf("CPU (user+sys) median %.1f ms, p95 %.1f ms; loadavg %s", Percentile(cpu, 50), Percentile(cpu, 95), loadavg())
}

// loadavg is /proc/loadavg's first three fields.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// fleetCPU sums the CPU ticks of every supervisor in ps and their
// children (guards; the agents, `sleep`, use none) over d.
func fleetCPU(ps []*supProc, d time.Duration) (ticks int, err error) {
	sum := func() (int, error) {
		total := 0
		for _, p := range ps {
			for _, pid := range append([]int{p.pid()}, Children(p.pid())...) {
				n, err := CPUTicks(pid)
				if err != nil {
					return 0, err
				}
				total += n
			}
		}
		return total, nil
	}
	t0, err := sum()
	if err != nil {
		return 0, err
	}
	time.Sleep(d)
	t1, err := sum()
	return t1 - t0, err
}

// waitIdle waits, for at most limit, until the fleet's CPU over a 2 s
// window is under 1 % of a core, and says how long that took (or that it
// never was): the issue's goals for `sup ls` and status-line are on "a
// machine where those supervisors are idle", and a call timed while 200
// supervisors still start up or take a hook each measured their work,
// not its own (specs/performance.md).
func waitIdle(ps []*supProc, limit time.Duration) string {
	if limit <= 0 {
		return "fleet not settled (smoke sizes)"
	}
	const window = 2 * time.Second
	start := time.Now()
	for {
		ticks, err := fleetCPU(ps, window)
		if err != nil {
			return fmt.Sprintf("fleet CPU unreadable: %v", err)
		}
		if ticks*100 < int(window/(10*time.Millisecond)) { // 1 tick = 10 ms
			return fmt.Sprintf("fleet idle after %s", time.Since(start).Round(time.Second))
		}
		if time.Since(start) >= limit {
			return fmt.Sprintf("fleet still busy after %s (%d ticks in the last %s)", limit, ticks, window)
		}
	}
}

// stickAll makes every supervisor wait on the human (a Stop hook, as
// `sup hook` sends), so status-line reads the worst case: every file a
// queue member.
func (e *benchEnv) stickAll() {
	socks, err := filepath.Glob(filepath.Join(e.rt, "*.sock"))
	if err != nil {
		e.t.Fatal(err)
	}
	for _, sock := range socks {
		c, err := ipc.Dial(sock, 5*time.Second)
		if err != nil {
			e.t.Fatalf("dial %s: %v", sock, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = c.Call(ctx, ipc.MethodHook, ipc.HookParams{Agent: "claude", Event: "Stop"}, nil)
		cancel()
		c.Close()
		if err != nil {
			e.t.Fatalf("hook %s: %v", sock, err)
		}
	}
}

// benchScale: `sup ls --json` over growing numbers of live supervisors,
// each running `sleep`, then `sup status-line` with all of them stuck.
func benchScale(t *testing.T, e *benchEnv, sz sizes) []Figure {
	const section = "4. scale (live supervisors, each running sleep)"
	var figs []Figure
	var fleet []*supProc
	for i, n := range sz.scale {
		for len(fleet) < n {
			p := e.start("sleep", "3600")
			p.discard()
			fleet = append(fleet, p)
		}
		e.waitSockets(n)
		settled := waitIdle(fleet, time.Duration(2*sz.settle*float64(time.Second)))
		lat, cpu, out := e.timeCommandCPU(sz.lsCalls, "ls", "--json")
		var sessions []map[string]any
		if err := json.Unmarshal([]byte(out), &sessions); err != nil || len(sessions) != n {
			t.Fatalf("sup ls --json with %d supervisors: %d sessions, %v", n, len(sessions), err)
		}
		f := Figure{Section: section, Name: fmt.Sprintf("sup ls --json, %d supervisors", n), Unit: "ms", Note: settled + "; " + cpuNote(cpu)}
		f.Summarise(lat)
		if i == len(sz.scale)-1 {
			f.Goal = fmt.Sprintf("≤ 100 ms at %d", n)
			f.Judge(f.P95 <= 100)
		}
		figs = append(figs, f)
	}
	n := sz.scale[len(sz.scale)-1]
	// The whole fleet idle: what n agents nobody is using cost the host.
	// Settled first: the last supervisors started seconds ago, and a
	// shell-profile supervisor's looks back off to one per 30 s only 34 s
	// after its start (0.1, 0.4, 1.6, 6.4, 25.6 s), with its start-up's
	// trim 2 s after the third. A window opening at once measured their
	// start-up, not idleness (specs/performance.md).
	time.Sleep(time.Duration(sz.settle * float64(time.Second)))
	ticks, err := fleetCPU(fleet, time.Duration(sz.idle*float64(time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	share := float64(ticks) / 100 / sz.idle * 100 // % of one core
	fc := Figure{Section: section, Name: fmt.Sprintf("%d idle supervisors' CPU (with guards, %gs)", n, sz.idle), Unit: "% core",
		Goal: "< 1% of a core", Note: fmt.Sprintf("%d ticks; loadavg %s", ticks, loadavg())}
	fc.Summarise([]float64{share})
	fc.Judge(share < 1)
	figs = append(figs, fc)
	e.stickAll()
	settled := waitIdle(fleet, time.Duration(2*sz.settle*float64(time.Second)))
	want := fmt.Sprintf("⚠ %d stuck · next: ", n)
	f := Figure{Section: section, Name: fmt.Sprintf("sup status-line, %d supervisors, all stuck", n), Unit: "ms", Goal: "≤ 10 ms"}
	lat, cpu, out := e.timeCommandCPU(sz.lsCalls, "status-line")
	f.Note = settled + "; " + cpuNote(cpu)

	if !strings.HasPrefix(out, want) {
		// Not fatal: under load some supervisors are no longer stuck by
		// the time the calls run (seen: 179 of 200 at once, none a minute
		// later — by inference the next look reads the `sleep` as working);
		// the calls still read every queue file.
		f.Note += fmt.Sprintf("; the last call said %q", strings.TrimSpace(out))
	}
	f.Summarise(lat)
	// sup's own start, which status-line cannot go below: how much of the
	// figure is reading the queue and how much the binary starting.
	version, _ := e.timeCommand(sz.lsCalls, "--version")
	f.SummariseBaseline("sup --version", version)
	f.Judge(f.P95 <= 10)
	// The fleet goes before the footprint section: an idle supervisor is
	// measured alone, not beside n others on a loaded machine.
	for _, p := range fleet {
		p.cmd.Process.Signal(syscall.SIGTERM) // Best effort: stop waits for each below.
	}
	for _, p := range fleet {
		p.stop()
	}
	return append(figs, f)
}
