package trigger

import (
	"slices"
	"time"
)

// Outcome is what the idempotency table remembers of a trigger.
type Outcome struct {
	Final bool // false: still under way
	Data  any  // the caller's result value, when final
	At    time.Time
}

// Table remembers recent trigger ids: a repeated id gets its first outcome
// (or "already active" while it is under way) instead of a second
// delivery. It keeps at most Remember ids for RememberFor. Not safe for
// concurrent use.
type Table struct {
	cfg   Config
	ids   map[string]Outcome
	order []string // insertion order, for eviction
}

// NewTable returns an empty table.
func NewTable(cfg Config) *Table {
	return &Table{cfg: cfg.WithDefaults(), ids: map[string]Outcome{}}
}

// Lookup returns what is known of id.
func (t *Table) Lookup(id string, now time.Time) (Outcome, bool) {
	o, ok := t.ids[id]
	if ok && now.Sub(o.At) > t.cfg.RememberFor {
		delete(t.ids, id)
		return Outcome{}, false
	}
	return o, ok
}

// Start marks id as under way.
func (t *Table) Start(id string, now time.Time) { t.put(id, Outcome{At: now}) }

// Finish records id's final outcome.
func (t *Table) Finish(id string, data any, now time.Time) {
	t.put(id, Outcome{Final: true, Data: data, At: now})
}

// Forget drops id (a trigger refused before any attempt may be sent again).
func (t *Table) Forget(id string) { delete(t.ids, id) }

func (t *Table) put(id string, o Outcome) {
	if _, ok := t.ids[id]; !ok {
		t.order = append(t.order, id)
	}
	t.ids[id] = o
	// Evict the oldest final outcomes; one under way is never evicted.
	for len(t.ids) > t.cfg.Remember {
		i := slices.IndexFunc(t.order, func(id string) bool { o, ok := t.ids[id]; return ok && o.Final })
		if i < 0 {
			break
		}
		delete(t.ids, t.order[i])
		t.order = slices.Delete(t.order, i, i+1)
	}
	if len(t.order) > 2*t.cfg.Remember {
		t.compact()
	}
}

// compact drops order entries whose ids were forgotten.
func (t *Table) compact() {
	keep := t.order[:0]
	for _, id := range t.order {
		if _, ok := t.ids[id]; ok {
			keep = append(keep, id)
		}
	}
	t.order = keep
}
