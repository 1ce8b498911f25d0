//go:build linux

package broker

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// CollectMetrics discovers every supervisor in dir (see Discover) and asks
// each for its counters and histograms (the `metrics` method), all at once,
// on the same connection as its state, each bounded by timeout. A supervisor that does not answer `metrics` (an
// older sup: UNKNOWN_METHOD, or one that exited meanwhile) keeps its state
// series and has no counter series.
func CollectMetrics(ctx context.Context, dir string, timeout time.Duration) (Snapshot, error) {
	var mu sync.Mutex
	metrics := map[string]ipc.MetricsResult{}
	res, err := discover(ctx, dir, timeout, func(ctx context.Context, c *ipc.Client, socket string) {
		var r ipc.MetricsResult
		if c.Call(ctx, ipc.MethodMetrics, nil, &r) != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		metrics[socket] = r
	}, true, false)
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Sessions: res.Sessions, Metrics: metrics, Unanswered: len(res.Errors)}, nil
}

// counterHelp explains each supervisor counter (the `metrics` method's
// names, specs/ipc.md) exported as sup_session_<name>.
var counterHelp = map[string]string{
	"trigger_requests_total":        "Trigger requests received, repeats included.",
	"trigger_delivered_total":       "Triggers delivered and acknowledged.",
	"trigger_timeout_total":         "Triggers that ended in a timeout.",
	"trigger_failed_total":          "Triggers that failed.",
	"trigger_cancelled_total":       "Triggers taken back (sup cancel, Ctrl-C) before any byte was typed.",
	"trigger_retry_total":           "Pastes repeated because the first was not acknowledged.",
	"trigger_deferred_total":        "Times a trigger was deferred (operator busy, rate limit, agent busy).",
	"trigger_rate_limited_total":    "Times a trigger was deferred by its thread's rate limit.",
	"trigger_already_active_total":  "Trigger requests whose id was already under way.",
	"trigger_override_total":        "Triggers delivered with force_override.",
	"trigger_fallback_resume_total": "Triggers that resumed a stopped agent to be delivered.",
	"trigger_fallback_fresh_total":  "Triggers that started a stopped agent fresh to be delivered.",
	"trigger_audit_errors_total":    "Trigger audit lines that could not be written.",
	"trigger_errors_total":          "Trigger outcomes by error code.",
	"hooks_total":                   "Agent hooks applied, by event (none: the agent's hooks are not installed).",
	"activity_changes_total":        "Activity changes, by the signal that made them (hook, stream, screen, lifecycle).",
	"model_calls_total":             "Calls of the model reader (specs/detection.md, \"The model reader\").",
	"model_failures_total":          "Failed model reader calls, by kind (timeout, http, not_json, bad_reply); the rule verdict stood.",
	"model_budget_exhausted_total":  "Screens not sent to the model because the host's budget was spent.",
	"trigger_latency_seconds":       "Trigger request to acknowledged delivery.",
	"trigger_write_latency_seconds": "Trigger request to first paste written.",
}

// labelled are the supervisor counters named <prefix><value>_total that
// are exported as one family with value as a label: the per-code trigger
// errors, hooks by event, activity changes by source.
var labelled = []struct{ prefix, family, label string }{
	{"trigger_error_", "trigger_errors_total", "code"},
	{"hook_", "hooks_total", "event"},
	{"detection_", "activity_changes_total", "source"},
	{"model_failed_", "model_failures_total", "kind"},
}

// labelledSeries maps a counter name to its labelled family, if it has one.
func labelledSeries(name string) (family, label, value string, ok bool) {
	for _, l := range labelled {
		if v, found := strings.CutPrefix(name, l.prefix); found && strings.HasSuffix(v, "_total") {
			return l.family, l.label, strings.TrimSuffix(v, "_total"), true
		}
	}
	return "", "", "", false
}

// supervisorMetrics writes the supervisors' counters and histograms as
// sup_session_* families. Counter names are the supervisor's, which already
// end in _total; histograms in milliseconds (`…_ms`) become `…_seconds`
// with their bounds and sum converted, Prometheus' base unit.
func (m *metricWriter) supervisorMetrics(snap Snapshot) {
	type series struct {
		s      Listing
		labels []string
		v      float64
	}
	counters := map[string][]series{}
	hists := map[string][]struct {
		s Listing
		h ipc.Histogram
	}{}
	for _, s := range snap.Sessions {
		r, ok := snap.Metrics[MetricsKey(s)]
		if !ok {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(r.Counters)) {
			v := float64(r.Counters[name])
			if family, label, value, ok := labelledSeries(name); ok {
				counters[family] = append(counters[family], series{s, []string{label, value}, v})
				continue
			}
			if !strings.HasSuffix(name, "_total") || !validMetricName(name) {
				continue // not a counter by its name: nothing to map it to
			}
			counters[name] = append(counters[name], series{s, nil, v})
		}
		for _, name := range slices.Sorted(maps.Keys(r.Histograms)) {
			base, ok := strings.CutSuffix(name, "_ms")
			if !ok || !validMetricName(base) {
				continue
			}
			hists[base+"_seconds"] = append(hists[base+"_seconds"], struct {
				s Listing
				h ipc.Histogram
			}{s, r.Histograms[name]})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(counters)) {
		full := "sup_session_" + name
		m.family(full, "counter", helpFor(name))
		for _, c := range counters[name] {
			m.sample(full, m.labels(c.s, c.labels...), c.v)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(hists)) {
		full := "sup_session_" + name
		m.family(full, "histogram", helpFor(name))
		for _, e := range hists[name] {
			m.histogram(full, e.s, e.h)
		}
	}
}

func helpFor(name string) string {
	if h, ok := counterHelp[name]; ok {
		return h
	}
	return "Supervisor metric " + name + " (the metrics method)."
}

// histogram writes one session's cumulative buckets, bounds and sum turned
// from milliseconds into seconds.
func (m *metricWriter) histogram(name string, s Listing, h ipc.Histogram) {
	if len(h.Counts) != len(h.Bounds)+1 {
		return // malformed: better absent than wrong
	}
	for i, b := range h.Bounds {
		m.sample(name+"_bucket", m.labels(s, "le", formatValue(b/1000)), float64(h.Counts[i]))
	}
	m.sample(name+"_bucket", m.labels(s, "le", "+Inf"), float64(h.Counts[len(h.Bounds)]))
	m.sample(name+"_sum", m.labels(s), h.Sum/1000)
	m.sample(name+"_count", m.labels(s), float64(h.Count))
}

// validMetricName keeps names a supervisor sends to what the text format
// allows after the sup_session_ prefix.
func validMetricName(n string) bool {
	if n == "" {
		return false
	}
	for _, r := range n {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
