//go:build linux

package web

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// benchSessions serves n stand-in supervisors with a realistic row each
// (a summary, a prompt with its command, an 80×24 screen).
func benchSessions(b testing.TB, dir string, n int) []*ipctest.Supervisor {
	screen := strings.Repeat(strings.Repeat("─", 78)+"\n", 23) + "> "
	out := make([]*ipctest.Supervisor, n)
	for i := range n {
		st := ipc.State{SessionID: fmt.Sprintf("b%011d", i), Name: fmt.Sprintf("bench-%d", i), Lifecycle: "running",
			Activity: "busy", Summary: "refactoring the parser, step " + fmt.Sprint(i), Profile: "claude"}
		if i%3 == 0 {
			st.Activity, st.Reason, st.WaitingSince, st.PromptID = "needs_confirmation", "permission", int64(1000+i), fmt.Sprintf("p%d", i)
			st.PromptChoices, st.PromptDetail = []string{"yes", "no", "always"}, "Bash: go test ./...\n  && git commit -am wip"
		}
		s := ipctest.Serve(b, dir, st)
		s.Server.Handle(ipc.MethodScreen, func(context.Context, *ipc.Request) (any, error) {
			return ipc.ScreenResult{Text: screen, Format: "text", Cols: 80, Rows: 24}, nil
		})
		out[i] = s
	}
	return out
}

// BenchmarkPage200 is the page's load with 200 sessions in headless
// Chromium: each op navigates and waits until all 200 rows are in the
// DOM. Metrics: ms/load (navigation → 200 rows, wall), fcp_ms (first
// contentful paint) and render_ms (the first render of the rows), both
// from the page's own performance timeline. Goal: ≤ 200 ms
// (specs/web.md).
//
//	go test -run '^$' -bench Page200 -benchtime 20x ./broker/web/
func BenchmarkPage200(b *testing.B) {
	const n = 200
	dir := shortDir(b)
	benchSessions(b, dir, n)
	r := startRig(b, dir)
	deadline := time.Now().Add(30 * time.Second)
	for len(r.s.hub.snapshotRows()) < n {
		if time.Now().After(deadline) {
			b.Fatalf("the hub has %d rows, want %d", len(r.s.hub.snapshotRows()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	br := newBrowser(b, r.base)
	br.open(r.s.URL())
	var fcp, render, wall, connect, snapshot []float64
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		br.must(20*time.Second, "load", chromedp.Navigate(r.base+"/"), chromedp.WaitVisible(chromedp.CSS(`body[data-rows="200"]`)))
		wall = append(wall, float64(time.Since(start).Microseconds())/1000)
		t, err := eval[map[string]float64](br, `({fcp: (performance.getEntriesByName('first-contentful-paint')[0]||{}).startTime||0,
			render: (performance.getEntriesByName('sup-first-render')[0]||{}).startTime||0,
			connect: (performance.getEntriesByName('sup-connect')[0]||{}).startTime||0,
			snapshot: (performance.getEntriesByName('sup-snapshot')[0]||{}).startTime||0})`)
		if err != nil {
			b.Fatal(err)
		}
		fcp, render = append(fcp, t["fcp"]), append(render, t["render"])
		connect, snapshot = append(connect, t["connect"]), append(snapshot, t["snapshot"])
	}
	b.StopTimer()
	b.ReportMetric(median(wall), "ms/load")
	b.ReportMetric(median(fcp), "fcp_ms")
	b.ReportMetric(median(render), "render_ms")
	b.ReportMetric(median(connect), "connect_ms")
	b.ReportMetric(median(snapshot), "snapshot_ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkStateToPage is a supervisor's change → the page showing it:
// each op changes one of 50 sessions (its activity event) and waits until
// the row's state text changed in the DOM, timed by the page's clock
// against ours (one machine, one clock). Metrics: p50_ms and p95_ms.
//
//	go test -run '^$' -bench StateToPage -benchtime 50x ./broker/web/
func BenchmarkStateToPage(b *testing.B) {
	dir := shortDir(b)
	sups := benchSessions(b, dir, 50)
	r := startRig(b, dir)
	br := newBrowser(b, r.base)
	br.open(r.s.URL())
	sel := `li.row[data-name="bench-1"] .state`
	br.must(20*time.Second, "rows", chromedp.WaitVisible(chromedp.CSS(sel)))
	if _, err := eval[bool](br, `(() => { window.__seen = []; let last = '';
		new MutationObserver(() => { const el = document.querySelector('`+sel+`');
			if (el && el.textContent !== last) { last = el.textContent; window.__seen.push(performance.timeOrigin + performance.now()); } })
		.observe(document.querySelector('main'), {childList: true, subtree: true, characterData: true}); return true; })()`); err != nil {
		b.Fatal(err)
	}
	var lat []float64
	acts := []string{"ready", "busy"}
	i := 0
	b.ResetTimer()
	for b.Loop() {
		seen, _ := eval[int](br, `window.__seen.length`)
		st := sups[1].State()
		st.Activity = acts[i%2]
		i++
		t0 := float64(time.Now().UnixMicro()) / 1000
		sups[1].Set(st)
		deadline := time.Now().Add(10 * time.Second)
		for {
			n, err := eval[int](br, `window.__seen.length`)
			if err == nil && n > seen {
				at, _ := eval[float64](br, `window.__seen[window.__seen.length-1]`)
				lat = append(lat, at-t0)
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("the page did not show change %d", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(median(lat), "p50_ms")
	b.ReportMetric(lat[min(len(lat)-1, len(lat)*95/100)], "p95_ms")
	b.ReportMetric(0, "ns/op")
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkWebRSS is `sup web`'s resident memory (the built binary, a
// process of its own) following 200 sessions, with 1 and then 50 pages'
// event streams open. Metrics: rss_kb_0, rss_kb_1page, rss_kb_50pages.
//
//	go test -run '^$' -bench WebRSS -benchtime 1x ./broker/web/
func BenchmarkWebRSS(b *testing.B) {
	sup := testutil.BuildPackage(b, "./cmd/sup")
	dir := shortDir(b)
	benchSessions(b, dir, 200)
	for b.Loop() {
		cmd := exec.Command(sup, "web", "--listen", "127.0.0.1:0")
		cmd.Env = append(os.Environ(), "SUP_RUNTIME_DIR="+dir, "XDG_CONFIG_HOME="+b.TempDir())
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		url := strings.TrimSpace(strings.TrimPrefix(line, "sup web: open "))
		base, _, _ := strings.Cut(url, "/?")
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar, Timeout: 0}
		if _, err := c.Get(url); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		open := func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events", nil)
			res, err := c.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			go io.Copy(io.Discard, res.Body) // Best effort: ends with ctx.
		}
		settle := func() float64 { time.Sleep(2 * time.Second); return rssKB(cmd.Process.Pid) }
		b.ReportMetric(settle(), "rss_kb_0")
		open()
		b.ReportMetric(settle(), "rss_kb_1page")
		for range 49 {
			open()
		}
		b.ReportMetric(settle(), "rss_kb_50pages")
		cancel()
		_ = cmd.Process.Kill() // Best effort: Wait reaps it.
		_ = cmd.Wait()
	}
	b.ReportMetric(0, "ns/op")
}

func rssKB(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return f
		}
	}
	return 0
}
