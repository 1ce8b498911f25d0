//go:build linux

package supervisor

import (
	"strings"
	"sync"
	"sync/atomic"
)

// counters are the session's own counts for the `metrics` method (the
// desk and the socket server keep theirs): hooks received by event and
// activity changes by the source that made them, which is how a dashboard
// sees whether an agent's hooks are installed and which signal drives it.
//
// It takes no lock: each count is an atomic, found in a sync.Map (written
// once per name, read on every count — the map's own good case).
type counters struct {
	m sync.Map // name → *atomic.Int64
}

// inc adds one to name.
func (c *counters) inc(name string) {
	v, ok := c.m.Load(name)
	if !ok {
		v, _ = c.m.LoadOrStore(name, new(atomic.Int64))
	}
	v.(*atomic.Int64).Add(1)
}

// copyTo adds the counts to dst.
func (c *counters) copyTo(dst map[string]int64) {
	c.m.Range(func(k, v any) bool {
		dst[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
}

// hookCounter names the counter of a hook event: hook_<event>_total, the
// event reduced to the characters a metric name may hold
// ("agent-turn-complete" → agent_turn_complete).
func hookCounter(event string) string {
	return "hook_" + metricWord(event) + "_total"
}

// detectionCounter names the counter of activity changes made by source.
func detectionCounter(source string) string {
	return "detection_" + metricWord(source) + "_total"
}

func metricWord(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}
