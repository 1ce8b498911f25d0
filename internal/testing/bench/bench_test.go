//go:build linux

package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
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
	settle       float64 // seconds the fleet settles before its idle window
	startups     int     // `sup start -- true` runs
	detectRounds int     // real Claude turns per detection mode (0: not run)
	truthRounds  int     // untouched real Claudes triggered (benchTruth)
	// paneFloodBytes and paneFloodRuns: the flood in a tmux pane with a
	// client attached, bare and through sup, interleaved rounds.
	paneFloodBytes int
	paneFloodRuns  int
}

var (
	fullSizes  = sizes{"full", 1000, 200 << 20, 3, []int{50, 100, 200}, 20, 60, 35, 20, 3, 10, 40 << 20, 5}
	smokeSizes = sizes{"smoke", 20, 4 << 20, 1, []int{2, 4}, 3, 1, 0, 3, 0, 0, 1 << 20, 1}
)

// TestBench runs every section and prints the report; with SUP_BENCH=full
// it writes bench/results.json at the module root (SUP_BENCH_OUT
// overrides), at smoke sizes a temporary file that must read back.
func TestBench(t *testing.T) {
	sz := smokeSizes
	if os.Getenv("SUP_BENCH") == "full" {
		sz = fullSizes
	}
	sup := testutil.Build(t).Sup
	// SUP_BENCH_SUP measures another build of sup (an older commit's
	// `make build`) with this harness: a before and after in one sitting
	// without porting the harness back. Only the binary under test
	// changes; fakeagent and the reference relays are this tree's.
	if other := os.Getenv("SUP_BENCH_SUP"); other != "" {
		if fi, err := os.Stat(other); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			t.Fatalf("SUP_BENCH_SUP=%q: want the path of an executable sup binary (%v)", other, err)
		}
		sup = other
	}
	env := newBenchEnv(t, sup)
	start := time.Now()
	r := &Report{Date: start, Mode: sz.mode, Machine: ThisMachine(), Sup: sup}
	// SUP_BENCH_ONLY=2b,4 runs only those sections (the numbers of the
	// table; 2a is the pty flood, 2b the flood in an attached pane): a
	// figure remeasured on its own, as on a shared machine. The full run's
	// results.json is then not written unless SUP_BENCH_OUT says where.
	only := os.Getenv("SUP_BENCH_ONLY")
	run := func(section string, f func() []Figure) {
		want := strings.Split(only, ",")
		if only == "" || slices.Contains(want, section) || slices.Contains(want, section[:1]) {
			r.Figures = append(r.Figures, f()...)
		}
	}
	run("1", func() []Figure { return benchInject(t, env, sz) })
	run("1", func() []Figure { return benchKeystroke(t, env, sz) })
	run("2a", func() []Figure { return benchThroughput(t, env, sz) })
	run("2b", func() []Figure { return benchPaneFlood(t, env, sz) })
	run("3", func() []Figure { return benchDetection(t, sz) })
	run("6", func() []Figure { return benchTruth(t, sz) })
	run("4", func() []Figure { return benchScale(t, env, sz) })
	run("5", func() []Figure { return benchFootprint(t, env, sz) })
	r.Elapsed = time.Since(start).Round(time.Second).String()
	r.WriteTable(os.Stdout)

	out := os.Getenv("SUP_BENCH_OUT")
	switch {
	case out != "":
	case sz.mode == "full" && only == "":
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
