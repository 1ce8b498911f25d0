//go:build linux

package supervisor

import (
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/config"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/supervisor/modelread"
)

// TestModelReaderBudget: 100 distinct unknown screens make at most the
// host's budget of calls, and asking again for a screen already read or
// under way makes none. (The window itself, with its clock, is
// modelread.TestBudgetWindow.)
func TestModelReaderBudget(t *testing.T) {
	fm, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer fm.Close()
	runtime := t.TempDir()
	pl := &plan.Plan{Config: plan.DefaultConfig()}
	pl.Config.Model = config.Model{Endpoint: fm.URL + "/v1", Name: "fake", Budget: 7}
	var counts counters
	m := newModelReader(pl, []string{"SUP_RUNTIME_DIR=" + runtime}, slog.New(slog.NewTextHandler(io.Discard, nil)), &counts)
	if m == nil {
		t.Fatal("model reader off")
	}
	if m.budget.Path != filepath.Join(runtime, "model-budget") {
		t.Fatalf("budget file %s", m.budget.Path)
	}
	for i := range 100 {
		text := "Unknown screen number " + strconv.Itoa(i)
		m.ask(modelread.Hash(text), text, func() {})
		m.ask(modelread.Hash(text), text, func() {}) // the same screen again
	}
	got := map[string]int64{}
	testutil.WaitUntil(t, 10*time.Second, "the calls to end", func() bool {
		counts.copyTo(got)
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(m.pending) == 0
	})
	if got["model_calls_total"] != 7 || got["model_budget_exhausted_total"] != 93 || fm.Count("chat") != 7 {
		t.Fatalf("counters %v, %d requests; want 7 calls, 93 over budget", got, fm.Count("chat"))
	}
}
