//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestMetricsPrometheus: real supervisors, one stuck; promtool accepts
// `sup metrics`; a real Prometheus scraping `sup metrics --listen` sees the
// target up and answers the stuck count through its HTTP API.
func TestMetricsPrometheus(t *testing.T) {
	t.Parallel()
	promtool := testutil.Program(t, "promtool", "apt-get install -y prometheus")
	prom := testutil.Program(t, "prometheus", "apt-get install -y prometheus")
	f := testutil.NewRig(t, "")
	f.Start("alpha", "-echo")
	f.Start("beta", "-echo")
	f.Start("gamma", "-echo")
	ipctest.Stuck(t, f.Socket("beta"), "beta")

	out, err := f.Sup(nil, "metrics")
	if err != nil {
		t.Fatal(err)
	}
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(out)
	if msg, err := check.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s\non:\n%s", err, msg, out)
	}
	if !strings.Contains(out, "sup_queue_length 1\n") || !strings.Contains(out, "sup_sessions 3\n") {
		t.Fatalf("want 3 sessions, 1 stuck:\n%s", out)
	}

	addr, _ := serveMetricsProcess(t, f, "--listen", "127.0.0.1:0")
	promAddr := freeAddr(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: sup\n    static_configs:\n      - targets: [%q]\n", addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	startProcess(t, prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--log.level=warn")

	var targets struct {
		Data struct {
			ActiveTargets []struct {
				Health    string `json:"health"`
				LastError string `json:"lastError"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	testutil.WaitUntil(t, 60*time.Second, "Prometheus to report the sup target up", func() bool {
		if promGet(promAddr, "/api/v1/targets", &targets) != nil || len(targets.Data.ActiveTargets) != 1 {
			return false
		}
		return targets.Data.ActiveTargets[0].Health == "up"
	})
	var q struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value []any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	testutil.WaitUntil(t, 30*time.Second, "Prometheus to answer sup_queue_length", func() bool {
		return promGet(promAddr, "/api/v1/query?query="+url.QueryEscape(`sup_queue_length{job="sup"}`), &q) == nil && len(q.Data.Result) == 1
	})
	if got := q.Data.Result[0].Value[1]; got != "1" {
		t.Fatalf("Prometheus says the stuck count is %v, want 1", got)
	}
}

// serveMetricsProcess runs `sup metrics ARGS` and returns the address it
// says it serves on and what it printed before.
func serveMetricsProcess(t testing.TB, f *testutil.Rig, args ...string) (addr, before string) {
	t.Helper()
	_, addr, before = serveMetricsCmd(t, f, args...)
	return addr, before
}

// serveMetricsCmd is serveMetricsProcess that also returns the process.
func serveMetricsCmd(t testing.TB, f *testutil.Rig, args ...string) (cmd *exec.Cmd, addr, before string) {
	t.Helper()
	cmd = exec.Command(f.Bins.Sup, append([]string{"metrics"}, args...)...)
	cmd.Env = f.Environ()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	startCmd(t, cmd)
	found := make(chan [2]string, 1)
	go func() {
		re := regexp.MustCompile(`serving http://([0-9.:\[\]]+)/metrics`)
		sc := bufio.NewScanner(stderr)
		var lines []string
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select { // the first address; the scanner goes on draining stderr
				case found <- [2]string{m[1], strings.Join(lines, "\n")}:
				default:
				}
			}
			lines = append(lines, sc.Text())
		}
	}()
	select {
	case r := <-found:
		return cmd, r[0], r[1]
	case <-time.After(20 * time.Second):
		t.Fatal("sup metrics --listen never said where it serves")
		return nil, "", ""
	}
}

// TestMetricsAllowRemote: --allow-remote serves on every interface and
// warns first; a scrape through it works.
func TestMetricsAllowRemote(t *testing.T) {
	t.Parallel()
	f := testutil.NewRig(t, "")
	addr, before := serveMetricsProcess(t, f, "--listen", "0.0.0.0:0", "--allow-remote")
	if !strings.Contains(before, "warning: serving every session's state to other hosts") {
		t.Fatalf("no warning before serving on %s: %q", addr, before)
	}
	_, port, _ := net.SplitHostPort(addr)
	resp, err := http.Get("http://127.0.0.1:" + port + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") || !strings.Contains(string(body), "sup_sessions 0\n") {
		t.Fatalf("scrape: %s %q\n%s", resp.Status, ct, body)
	}
}

// startProcess starts a program for the rest of the test.
func startProcess(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	startCmd(t, cmd)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(name), out.String())
		}
	})
}

// startCmd starts cmd and kills it (and waits) at cleanup.
func startCmd(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // Best effort: it may have exited.
		_ = cmd.Wait()
	})
}

// freeAddr is a loopback address with a port free at the moment.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func promGet(addr, path string, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return json.Unmarshal(body, out)
}
