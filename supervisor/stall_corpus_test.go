//go:build linux

package supervisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/classify"
)

// TestUnitStatusLinesOnCorpus: each agent profile's status_lines (the
// region whose changes are not progress, specs/detection.md "Stalled")
// find the spinner on every recorded hang of its agent (busy, the request
// out, no token yet: what a stall looks like), and never hide the line a recording is labelled by (the
// assistant's answer, a dialog's option): a hidden answer would make real
// progress look like a stall.
func TestUnitStatusLinesOnCorpus(t *testing.T) {
	dir := filepath.Join("..", "testdata", "corpus")
	js, err := os.ReadFile(filepath.Join(dir, "corpus.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Recordings []struct {
			File, Agent, Activity, Marker string
			Cols, Rows                    int
		} `json:"recordings"`
	}
	if err := json.Unmarshal(js, &c); err != nil {
		t.Fatal(err)
	}
	status := map[string]activity.StatusLines{}
	busy := 0
	for _, e := range c.Recordings {
		st, ok := status[e.Agent]
		if !ok {
			p, err := plan.LoadProfile(t.TempDir(), e.Agent)
			if err != nil {
				t.Fatal(err)
			}
			if st, err = activity.CompileStatus(p.StatusLines); err != nil || len(st) == 0 {
				t.Fatalf("profile %s: status_lines %v (%d)", e.Agent, err, len(st))
			}
			status[e.Agent] = st
		}
		data, err := os.ReadFile(filepath.Join(dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		text := classify.Render(data, e.Cols, e.Rows).Text
		line := st.Status(text)
		if strings.HasPrefix(filepath.Base(e.File), "busy_waiting") {
			// The hang (the request is out, no token yet) is the stall
			// itself: its spinner must be found. A streaming screen may
			// show none; its text is progress.
			busy++
			if line == "" {
				t.Errorf("%s: no status line found on a busy screen:\n%s", e.File, text)
			}
		}
		for _, l := range strings.Split(text, "\n") {
			waits := e.Activity == "ready" || e.Activity == "needs_confirmation" // busy and error screens label their status line
			if hidden := st.Status(l); waits && e.Marker != "" && strings.Contains(l, e.Marker) && hidden != "" {
				t.Errorf("%s: the status lines hide the labelled line %q", e.File, l)
			}
		}
	}
	if busy < 3 {
		t.Fatalf("%d recorded hangs: the corpus should hold each agent's", busy)
	}
}
