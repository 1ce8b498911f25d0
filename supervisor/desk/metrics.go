package desk

import (
	"maps"

	"github.com/sup-tmux/sup/ipc"
)

// latencyBounds are the trigger histograms' buckets, in milliseconds.
var latencyBounds = []float64{1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000}

// metrics holds the desk's counters and histograms (specs/ipc.md,
// "metrics"); Desk.mu guards it.
type metrics struct {
	counters   map[string]int64
	histograms map[string]*ipc.Histogram
}

func newMetrics() *metrics {
	return &metrics{counters: map[string]int64{}, histograms: map[string]*ipc.Histogram{}}
}

func (m *metrics) inc(name string) { m.counters[name]++ }

func (m *metrics) observe(name string, v float64) {
	h := m.histograms[name]
	if h == nil {
		h = &ipc.Histogram{Bounds: latencyBounds, Counts: make([]int64, len(latencyBounds)+1)}
		m.histograms[name] = h
	}
	for i, b := range h.Bounds {
		if v <= b {
			h.Counts[i]++
		}
	}
	h.Counts[len(h.Bounds)]++
	h.Sum += v
	h.Count++
}

func (m *metrics) snapshot() ipc.MetricsResult {
	r := ipc.MetricsResult{Counters: maps.Clone(m.counters), Histograms: map[string]ipc.Histogram{}}
	for name, h := range m.histograms {
		c := *h
		c.Counts = append([]int64(nil), h.Counts...)
		r.Histograms[name] = c
	}
	return r
}
