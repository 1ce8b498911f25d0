//go:build linux

package broker

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// TestWriteMetrics checks the exposition line by line against the text
// format's grammar, the escaping of label values, and the values.
func TestWriteMetrics(t *testing.T) {
	now := time.UnixMilli(100_000)
	sessions := []Listing{
		{State: ipc.State{SessionID: "a1", Name: `we"ird\name` + "\nx", Workspace: "ws", Role: "rev", Profile: "claude",
			Lifecycle: "running", Activity: "needs_confirmation", WaitingSince: 40_000, RestartCount: 2,
			Health: "degraded", StartedAt: 10_000,
			Triggers: map[string]int{"delivered": 3, "deferred": 1}}, Socket: "/a1.sock"},
		{State: ipc.State{SessionID: "b2", Name: "b", Profile: "codex", Lifecycle: "halted", Activity: "error",
			WaitingSince: 90_000, SkipUntil: 200_000}, Socket: "/b2.sock"},
	}
	metrics := map[string]ipc.MetricsResult{"/a1.sock": {
		Counters: map[string]int64{"trigger_requests_total": 4, "trigger_error_ACK_TIMEOUT_total": 1, "not-a-name_total": 9,
			"hook_Stop_total": 2, "hook_agent_turn_complete_total": 1, "detection_hook_total": 3, "detection_screen_total": 5},
		Histograms: map[string]ipc.Histogram{"trigger_latency_ms": {Bounds: []float64{5, 250}, Counts: []int64{1, 2, 3}, Sum: 1500, Count: 3}},
	}}
	var buf bytes.Buffer
	if err := WriteMetrics(&buf, Snapshot{Sessions: sessions, Metrics: metrics, Unanswered: 1}, now); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	sample := regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*",?)*\})? -?[0-9.e+]+$`)
	typed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "# TYPE "):
			f := strings.Fields(line)
			if len(f) != 4 || (f[3] != "gauge" && f[3] != "counter" && f[3] != "histogram") || typed[f[2]] {
				t.Fatalf("bad or repeated TYPE line %q", line)
			}
			typed[f[2]] = true
		case strings.HasPrefix(line, "# HELP "):
		default:
			if !sample.MatchString(line) {
				t.Fatalf("not a valid sample line: %q", line)
			}
			name, _, _ := strings.Cut(line, "{")
			name, _, _ = strings.Cut(name, " ")
			if !typed[name] && !typed[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")] {
				t.Fatalf("sample %q before its TYPE line", line)
			}
		}
	}
	lbl := `session="a1",name="we\"ird\\name\nx",workspace="ws",role="rev",profile="claude"`
	for _, want := range []string{
		"sup_sessions 2\n",
		"sup_discovery_unanswered 1\n",
		"sup_queue_length 1\n",
		"sup_queue_cooling 1\n",
		"sup_queue_oldest_wait_seconds 60\n",
		`sup_sessions_by_activity{activity="error"} 1` + "\n",
		`sup_sessions_by_activity{activity="busy"} 0` + "\n",
		"sup_session_health{" + lbl + `,health="degraded"} 1` + "\n",
		"sup_session_start_time_seconds{" + lbl + "} 10\n",
		"sup_session_trigger_requests_total{" + lbl + "} 4\n",
		"sup_session_trigger_errors_total{" + lbl + `,code="ACK_TIMEOUT"} 1` + "\n",
		"sup_session_hooks_total{" + lbl + `,event="Stop"} 2` + "\n",
		"sup_session_hooks_total{" + lbl + `,event="agent_turn_complete"} 1` + "\n",
		"sup_session_activity_changes_total{" + lbl + `,source="hook"} 3` + "\n",
		"sup_session_activity_changes_total{" + lbl + `,source="screen"} 5` + "\n",
		"# TYPE sup_session_trigger_latency_seconds histogram\n",
		"sup_session_trigger_latency_seconds_bucket{" + lbl + `,le="0.005"} 1` + "\n",
		"sup_session_trigger_latency_seconds_bucket{" + lbl + `,le="0.25"} 2` + "\n",
		"sup_session_trigger_latency_seconds_bucket{" + lbl + `,le="+Inf"} 3` + "\n",
		"sup_session_trigger_latency_seconds_sum{" + lbl + "} 1.5\n",
		"sup_session_trigger_latency_seconds_count{" + lbl + "} 3\n",
		"sup_session_lifecycle{" + lbl + `,lifecycle="running"} 1` + "\n",
		"sup_session_lifecycle{" + lbl + `,lifecycle="halted"} 0` + "\n",
		"sup_session_activity{" + lbl + `,activity="needs_confirmation"} 1` + "\n",
		"sup_session_waiting_seconds{" + lbl + "} 60\n",
		"sup_session_restarts_total{" + lbl + "} 2\n",
		"sup_session_triggers_total{" + lbl + `,outcome="deferred"} 1` + "\n",
		"sup_session_triggers_total{" + lbl + `,outcome="delivered"} 3` + "\n",
		`sup_session_skip_cooling{session="b2",name="b",workspace="",role="",profile="codex"} 1` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not-a-name") {
		t.Errorf("a counter name the text format cannot carry was exported:\n%s", out)
	}
}
