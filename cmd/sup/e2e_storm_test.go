//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/hooks"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// stormScrapers is the storm of issue 20: 500 parallel scrapes.
const stormScrapers = 500

// stormRSSBound is the peak RSS (VmHWM) `sup metrics --listen` may reach
// during the storm: 64 connections at most, each a goroutine and two small
// buffers, and one shared body (measured: 19 MB peak, see specs/
// security.md). Under -race (CI's `make test`) sup is built with the race
// detector, whose shadow memory alone took it from 12 to 28 MB idle and to
// 64 MB in the storm: the bound doubles there.
func stormRSSBound() int64 {
	if testutil.Race() {
		return 128 << 20
	}
	return 64 << 20
}

// stormResult is what one scrape storm measured.
type stormResult struct {
	hooks, landed int             // hook calls made; answered ok within the budget
	latencies     []time.Duration // of every hook call, sorted
	counted       int64           // hooks the supervisors counted as applied
	scrapes       int64           // scrapes answered 200, over the whole storm
	scrapeErrors  int64
	took          time.Duration
	rssBefore     int64 // bytes, VmRSS of sup metrics before the storm
	rssPeak       int64 // bytes, VmHWM of sup metrics after it
}

func (r stormResult) p(q float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(q*float64(len(r.latencies))))]
}

// scrapeStorm starts three real supervisors and `sup metrics --listen`,
// has stormScrapers clients (testdata/scrapestorm, a process of its own)
// scrape it back to back, and meanwhile lets run fire hook frames
// (UserPromptSubmit, as `sup hook` sends them, each with budget)
// round-robin at the supervisors, one after another.
func scrapeStorm(tb testing.TB, budget time.Duration, run func(fire func())) stormResult {
	f := testutil.NewRig(tb, "")
	names := []string{"alpha", "beta", "gamma"}
	socks := make([]string, len(names))
	for i, n := range names {
		f.Start(n, "-echo")
		socks[i] = f.Socket(n)
	}
	fire := func(sock, payload string) (time.Duration, error) {
		start := time.Now()
		err := hooks.Forward(context.Background(), "claude", sock, []byte(payload), start.Add(budget)) // as sup hook
		return time.Since(start), err
	}
	for _, s := range socks {
		if _, err := fire(s, `{"session_id":"conv-1","hook_event_name":"SessionStart","source":"startup"}`); err != nil {
			tb.Fatal(err)
		}
	}

	// SUP_STORM_METRICS_SUP: another build to serve the metrics (say,
	// before issue 20), for a before/after figure.
	if bin := os.Getenv("SUP_STORM_METRICS_SUP"); bin != "" {
		f.Bins.Sup = bin
	}
	cmd, addr, _ := serveMetricsCmd(tb, f, "--listen", "127.0.0.1:0")
	var r stormResult
	r.rssBefore = procStatusBytes(tb, cmd.Process.Pid, "VmRSS")

	storm := exec.Command(testutil.BuildPackage(tb, "./testdata/scrapestorm"), "-n", strconv.Itoa(stormScrapers), "http://"+addr+"/metrics")
	var out testutil.Buffer
	storm.Stdout, storm.Stderr = &out, &out
	if err := storm.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		storm.Process.Kill() // Best effort: usually ended below.
		storm.Wait()
	})
	testutil.WaitUntil(tb, 30*time.Second, "the storm to start", func() bool { return strings.Contains(out.String(), "storming") })
	time.Sleep(time.Second) // let it build up: every scraper connected or queued

	start := time.Now()
	run(func() {
		took, err := fire(socks[r.hooks%len(socks)], `{"session_id":"conv-1","hook_event_name":"UserPromptSubmit","prompt":"storm"}`)
		r.hooks++
		r.latencies = append(r.latencies, took)
		if err == nil {
			r.landed++
		}
	})
	r.took = time.Since(start)
	r.rssPeak = procStatusBytes(tb, cmd.Process.Pid, "VmHWM")
	storm.Process.Signal(syscall.SIGTERM)
	storm.Wait()
	if _, err := fmt.Sscanf(out.String()[strings.Index(out.String(), "scrapes="):], "scrapes=%d errors=%d", &r.scrapes, &r.scrapeErrors); err != nil {
		tb.Fatalf("scrapestorm said %q: %v", out.String(), err)
	}
	if r.scrapeErrors > 0 {
		tb.Logf("scrapestorm: %s", out.String())
	}
	sort.Slice(r.latencies, func(i, j int) bool { return r.latencies[i] < r.latencies[j] })

	for _, s := range socks {
		c, err := ipc.Dial(s, time.Second)
		if err != nil {
			tb.Fatal(err)
		}
		var m ipc.MetricsResult
		err = c.Call(context.Background(), ipc.MethodMetrics, nil, &m)
		c.Close()
		if err != nil {
			tb.Fatal(err)
		}
		r.counted += m.Counters["hook_UserPromptSubmit_total"]
	}
	return r
}

// procStatusBytes reads a kB field of /proc/PID/status.
func procStatusBytes(tb testing.TB, pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestMetricsScrapeStormHooksLand: 500 parallel scrapes of `sup metrics
// --listen` while 150 hooks fire: every hook lands (counted by its
// supervisor), every scrape is answered,
// and sup metrics stays under stormRSSBound. Latency is a benchmark's
// business (BenchmarkMetricsScrapeStorm).
func TestMetricsScrapeStormHooksLand(t *testing.T) {
	// Not parallel: a storm of 500 scrapes is a load of its own, and a test beside it
	// slows the scrapes it counts (2 of 1176 were cut under a loaded run).
	// A second per hook, not sup hook's 80 ms: this test asks whether the
	// storm starves the supervisors' slots (before issue 20 it refused 45 %
	// of the hooks outright); whether each lands within the budget is a
	// latency, the benchmark's figure — under -race with the whole suite
	// on two cores the test process itself is not scheduled for 80 ms at
	// times (149 of 150 in budget once).
	r := scrapeStorm(t, time.Second, func(fire func()) {
		for range 150 {
			fire()
		}
	})
	t.Logf("%d/%d hooks landed, p50 %v p99 %v max %v; %d scrapes (%d failed) in %v; sup metrics RSS %d MB → peak %d MB",
		r.landed, r.hooks, r.p(0.5), r.p(0.99), r.p(1), r.scrapes, r.scrapeErrors, r.took, r.rssBefore>>20, r.rssPeak>>20)
	// Every hook reaches its supervisor.
	if r.counted != int64(r.hooks) {
		t.Errorf("%d of %d hooks counted by the supervisors (%d answered in budget): want all", r.counted, r.hooks, r.landed)
	}
	if r.scrapeErrors != 0 {
		t.Errorf("%d scrapes failed", r.scrapeErrors)
	}
	if r.rssPeak > stormRSSBound() {
		t.Errorf("sup metrics peaked at %d MB RSS, over the bound of %d MB", r.rssPeak>>20, stormRSSBound()>>20)
	}
}

// BenchmarkMetricsScrapeStorm: the figures for issue 20 — hook success
// rate and latency during a 500-way scrape storm (goal: 100 %, p99 ≤ 90 ms),
// and sup metrics' peak RSS. One op is one hook.
//
//	go test ./cmd/sup -run '^$' -bench MetricsScrapeStorm -benchtime 300x
func BenchmarkMetricsScrapeStorm(b *testing.B) {
	r := scrapeStorm(b, hookBudget-10*time.Millisecond, func(fire func()) { // as forwardHook
		for b.Loop() {
			fire()
		}
	})
	b.ReportMetric(100*float64(r.landed)/float64(r.hooks), "hook_ok_%")
	b.ReportMetric(float64(r.p(0.99).Microseconds())/1000, "hook_p99_ms")
	b.ReportMetric(float64(r.p(0.5).Microseconds())/1000, "hook_p50_ms")
	b.ReportMetric(float64(r.rssPeak)/(1<<20), "rss_peak_MB")
	b.ReportMetric(float64(r.scrapes), "scrapes")
	if r.counted != int64(r.landed) {
		b.Logf("supervisors counted %d hooks, %d answered in budget", r.counted, r.landed)
	}
}
