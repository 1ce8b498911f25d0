//go:build linux

package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testutil"
)

// sizes are how much each section measures; SUP_BENCH=full picks fullSizes,
// anything else the smoke sizes CI runs (a few seconds, proving the harness
// works, figures meaningless).
type sizes struct {
	mode         string
	injects      int     // inject and send-keys round trips
	floodBytes   int     // per throughput run
	floodRuns    int     // runs of each of bare, sup, tmux
	scale        []int   // live supervisors for `sup ls`
	lsCalls      int     // `sup ls --json` calls per scale
	idle         float64 // seconds an idle supervisor is watched
	startups     int     // `sup start -- true` runs
	detectRounds int     // real Claude turns per detection mode (0: not run)
	truthRounds  int     // untouched real Claudes triggered (benchTruth)
}

var (
	fullSizes  = sizes{"full", 1000, 200 << 20, 3, []int{50, 100, 200}, 20, 60, 20, 3, 10}
	smokeSizes = sizes{"smoke", 20, 4 << 20, 1, []int{2, 4}, 3, 1, 3, 0, 0}
)

// TestBench runs every section and prints the report; with SUP_BENCH=full
// it writes bench/results.json at the module root (SUP_BENCH_OUT
// overrides), at smoke sizes a temporary file that must read back.
func TestBench(t *testing.T) {
	sz := smokeSizes
	if os.Getenv("SUP_BENCH") == "full" {
		sz = fullSizes
	}
	bins := testutil.Build(t)
	env := newBenchEnv(t, bins.Sup)
	start := time.Now()
	r := &Report{Date: start, Mode: sz.mode, Machine: ThisMachine()}
	r.Figures = append(r.Figures, benchInject(t, env, sz)...)
	r.Figures = append(r.Figures, benchKeystroke(t, env, sz)...)
	r.Figures = append(r.Figures, benchThroughput(t, env, sz)...)
	r.Figures = append(r.Figures, benchDetection(t, sz)...)
	r.Figures = append(r.Figures, benchTruth(t, sz)...)
	r.Figures = append(r.Figures, benchScale(t, env, sz)...)
	r.Figures = append(r.Figures, benchFootprint(t, env, sz)...)
	r.Elapsed = time.Since(start).Round(time.Second).String()
	r.WriteTable(os.Stdout)

	out := os.Getenv("SUP_BENCH_OUT")
	switch {
	case out != "":
	case sz.mode == "full":
		out = filepath.Join(testutil.ModuleRoot(t), "bench", "results.json")
	default:
		out = filepath.Join(t.TempDir(), "results.json")
	}
	if err := r.WriteJSON(out); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
	var back Report
	if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &back) != nil || len(back.Figures) != len(r.Figures) {
		t.Errorf("%s does not read back as the report: %v", out, err)
	}
	for _, f := range r.Figures {
		if f.N == 0 && f.Note == "" {
			t.Errorf("figure %q measured nothing and says not why", f.Name)
		}
	}
}
