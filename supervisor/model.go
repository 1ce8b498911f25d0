//go:build linux

package supervisor

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/config"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/modelread"
	"github.com/sup-tmux/sup/supervisor/screen"
)

// The model reader in the session (specs/detection.md, "The model
// reader"): asked only for a screen no rule reads once the fallback called
// it a question (quiet for the profile's unknown_after), or — with
// `model.summaries` — for a dialog a rule knows that has no summary once
// it is as quiet; never on the screen watcher's path: the call runs in its
// own goroutine, its outcome goes into a cache by screen hash, and a kick
// makes the watcher look again, which applies the cached reading. A
// failure is cached too: an unchanged screen is never sent twice.

// modelCacheSize bounds the readings a session keeps: far more distinct
// unknown screens than a session shows between two dialogs.
const modelCacheSize = 256

// modelReader is one session's model reader; a nil *modelReader is off.
type modelReader struct {
	client   *modelread.Client
	budget   *modelread.FileBudget
	examples []config.ModelExample
	log      *slog.Logger
	counts   *counters
	rule     string // the signals' rule: model:<name>

	mu         sync.Mutex
	cache      *modelread.Cache
	pending    map[string]bool
	now        *modelNow // the reading of the screen shown now; nil: none
	overBudget bool      // the budget ran out and that is logged
}

// modelNow is the reading of the screen the watcher saw last.
type modelNow struct {
	hash  string
	reply modelread.Reply
}

// newModelReader returns the session's model reader, nil when
// config.yaml has no model: section or its key is missing (logged: the
// session runs on its rules, as without one).
func newModelReader(pl *plan.Plan, environ []string, log *slog.Logger, counts *counters) *modelReader {
	cfg := pl.Config.Model
	if !cfg.Enabled() {
		return nil
	}
	lookup := func(k string) (string, bool) { v := plan.LookupIn(environ)(k); return v, v != "" }
	key, err := cfg.LoadKey(lookup)
	if err == nil {
		var c *modelread.Client
		if c, err = modelread.NewClient(cfg, key); err == nil {
			cfg = c.Config()
			log.Info("model_reader", "endpoint", c.URL(), "model", cfg.Name, "budget_per_hour", cfg.Budget,
				"timeout", cfg.Timeout.String(), "examples", len(pl.Profile.ModelExamples))
			return &modelReader{client: c, examples: pl.Profile.ModelExamples, log: log, counts: counts,
				budget: &modelread.FileBudget{Path: paths.ModelBudget(paths.RuntimeDir(plan.LookupIn(environ))), Max: cfg.Budget},
				rule:   "model:" + cfg.Name, cache: modelread.NewCache(modelCacheSize), pending: map[string]bool{}}
		}
	}
	log.Warn("model_reader_off", "err", err)
	return nil
}

// look notes the screen the watcher sees and returns the cached reading
// of it as a signal for the fallback (nil: none yet, or a failed call).
// It never calls out.
func (m *modelReader) look(snap screen.Snapshot) (hash string, read *activity.Signal) {
	if m == nil {
		return "", nil
	}
	hash = modelread.Hash(snap.Text)
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.cache.Get(hash)
	if !ok || e.Failed != "" {
		m.now = nil
		return hash, nil
	}
	m.now = &modelNow{hash: hash, reply: e.Reply}
	a := activity.Activity(e.Reply.Activity())
	return hash, &activity.Signal{Rule: m.rule, Activity: a, Reason: "model", Summary: e.Reply.Summary, Stuck: activity.Stuck(a)}
}

// forget notes a screen a rule reads and that needs no reading.
func (m *modelReader) forget() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.now = nil
	m.mu.Unlock()
}

// ask sends the screen to the model unless it was sent before, is under
// way, or the host's budget is spent; kick is called when the outcome is
// in the cache.
func (m *modelReader) ask(hash, text string, kick func()) {
	if m == nil || hash == "" {
		return
	}
	m.mu.Lock()
	if _, done := m.cache.Get(hash); done || m.pending[hash] {
		m.mu.Unlock()
		return
	}
	ok, err := m.budget.Take(time.Now())
	if !ok {
		m.cache.Put(hash, modelread.Entry{Failed: "budget"})
		logIt := !m.overBudget
		m.overBudget = true
		m.mu.Unlock()
		m.counts.inc("model_budget_exhausted_total")
		if logIt {
			m.log.Warn("model_budget_exhausted", "screen_hash", hash, "budget_per_hour", m.budget.Max, "err", err)
		}
		return
	}
	m.overBudget = false
	m.pending[hash] = true
	m.mu.Unlock()
	m.counts.inc("model_calls_total")
	go m.call(hash, text, kick)
}

func (m *modelReader) call(hash, text string, kick func()) {
	start := time.Now()
	reply, err := m.client.Read(context.Background(), m.examples, text)
	e := modelread.Entry{Reply: reply}
	if err != nil {
		e.Failed = modelread.KindOf(err)
	}
	m.mu.Lock()
	delete(m.pending, hash)
	m.cache.Put(hash, e)
	m.mu.Unlock()
	took := time.Since(start).Milliseconds()
	if err != nil {
		// One line per failed call; the screen is not sent again, so one
		// per failing screen. The rule's verdict stands.
		m.counts.inc("model_failed_" + string(e.Failed) + "_total")
		m.log.Warn("model_failed", "screen_hash", hash, "kind", string(e.Failed), "took_ms", took, "err", err)
		return
	}
	m.log.Info("model_read", "screen_hash", hash, "state", reply.State, "options", len(reply.Actions), "took_ms", took)
	kick()
}

// current returns the reading of the screen shown now.
func (m *modelReader) current() *modelNow {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// state fills the model fields of `state`, and the summary of a dialog
// that has none.
func (m *modelReader) state(st *ipc.State) {
	n := m.current()
	st.ModelOptions = []ipc.ModelOption{}
	if n == nil {
		return
	}
	st.ModelState, st.ModelSummary = n.reply.Activity(), n.reply.Summary
	for i, a := range n.reply.Actions {
		st.ModelOptions = append(st.ModelOptions, ipc.ModelOption{Choice: strconv.Itoa(i + 1), Label: a.Label, Key: a.Key})
	}
	if st.Summary == "" && st.Activity == string(activity.NeedsConfirmation) {
		st.Summary = n.reply.Summary
	}
}

// explain is explain's model section: the reading of the screen shown
// now, nil when none.
func (m *modelReader) explain() *ipc.ExplainModel {
	var st ipc.State
	m.state(&st)
	n := m.current()
	if n == nil {
		return nil
	}
	return &ipc.ExplainModel{State: st.ModelState, Summary: st.ModelSummary, Options: st.ModelOptions, ScreenHash: n.hash}
}

// prompt gives an open prompt the profile has no answer keys for the
// options the model read on it: `sup answer N` types option N's key — only
// ever on a human's explicit pick.
func (m *modelReader) prompt(p *prompt) {
	n := m.current()
	if p.keys != nil || p.id == "" || n == nil || n.reply.State != config.StateNeedsConfirmation || len(n.reply.Actions) == 0 {
		return
	}
	keys := make([]string, len(n.reply.Actions))
	p.options = p.options[:0]
	for i, a := range n.reply.Actions {
		keys[i], _ = config.ParseKey(a.Key) // valid: ParseReply checked it
		p.options = append(p.options, ipc.PromptOption{Choice: strconv.Itoa(i + 1), Label: a.Label})
	}
	p.kind, p.keys = "model", plan.PickKeys(keys)
}
