//go:build linux

package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Figure is one row of the report: a measurement, its baseline and goal.
type Figure struct {
	Section string  `json:"section"`
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	N       int     `json:"n"`      // repetitions behind Median and P95
	Median  float64 `json:"median"` // in Unit
	P95     float64 `json:"p95"`
	// Baseline is what a user would use instead, measured in the same run.
	Baseline       string  `json:"baseline,omitempty"`
	BaselineMedian float64 `json:"baseline_median,omitempty"`
	BaselineP95    float64 `json:"baseline_p95,omitempty"`
	// Ratio is Median / BaselineMedian (for throughput: sup's rate over the
	// baseline's).
	Ratio float64 `json:"ratio,omitempty"`
	Goal  string  `json:"goal,omitempty"`
	// Met is "yes", "no", or "" when the figure has no goal or was not
	// measured.
	Met  string `json:"met,omitempty"`
	Note string `json:"note,omitempty"`
}

// Machine describes where the report was measured.
type Machine struct {
	Cores   int    `json:"cores"`
	Go      string `json:"go"`
	Kernel  string `json:"kernel"`
	LoadAvg string `json:"loadavg"` // at the start of the run
}

// Report is the whole run.
type Report struct {
	Date    time.Time `json:"date"`
	Mode    string    `json:"mode"` // full or smoke
	Machine Machine   `json:"machine"`
	Figures []Figure  `json:"figures"`
	// Sup is the binary measured (SUP_BENCH_SUP, or this tree's build).
	Sup string `json:"sup"`
	// Elapsed is how long the run took.
	Elapsed string `json:"elapsed"`
}

// ThisMachine describes the running machine.
func ThisMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadAvg = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return m
}

// Percentile returns the p-th percentile (0-100, nearest rank) of xs.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Summarise fills f's N, Median and P95 from samples.
func (f *Figure) Summarise(samples []float64) {
	f.N = len(samples)
	f.Median = Percentile(samples, 50)
	f.P95 = Percentile(samples, 95)
}

// SummariseBaseline fills f's baseline figures and the ratio of the
// medians.
func (f *Figure) SummariseBaseline(name string, samples []float64) {
	f.Baseline = name
	f.BaselineMedian = Percentile(samples, 50)
	f.BaselineP95 = Percentile(samples, 95)
	if f.BaselineMedian > 0 && f.Median > 0 { // a negative latency has no ratio
		f.Ratio = f.Median / f.BaselineMedian
	}
}

// Judge sets Met from ok.
func (f *Figure) Judge(ok bool) {
	f.Met = "no"
	if ok {
		f.Met = "yes"
	}
}

// WriteTable prints the report as a text table.
func (r *Report) WriteTable(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "sup bench (%s) %s — %d cores, %s, %s, loadavg %s, took %s\n\n",
		r.Mode, r.Date.Format("2006-01-02 15:04"), m.Cores, m.Go, m.Kernel, m.LoadAvg, r.Elapsed)
	if r.Sup != "" {
		fmt.Fprintf(w, "sup measured: %s\n\n", r.Sup)
	}
	fmt.Fprintf(w, "%-44s %5s %11s %11s  %-30s %7s  %-18s %s\n",
		"figure", "n", "median", "p95", "baseline (median / p95)", "ratio", "goal", "met")
	section := ""
	for _, f := range r.Figures {
		if f.Section != section {
			section = f.Section
			fmt.Fprintf(w, "%s\n", section)
		}
		base, ratio := "", ""
		if f.Baseline != "" {
			base = fmt.Sprintf("%s %s / %s", f.Baseline, num(f.BaselineMedian), num(f.BaselineP95))
		}
		if f.Ratio != 0 {
			ratio = fmt.Sprintf("%.2f×", f.Ratio)
		}
		med, p95 := num(f.Median)+" "+f.Unit, num(f.P95)+" "+f.Unit
		if f.N == 0 {
			med, p95 = "-", "-"
		}
		fmt.Fprintf(w, "  %-42s %5d %11s %11s  %-30s %7s  %-18s %s\n", f.Name, f.N, med, p95, base, ratio, f.Goal, f.Met)
		if f.Note != "" {
			fmt.Fprintf(w, "  %-42s   ↳ %s\n", "", f.Note)
		}
	}
}

// num prints a figure with three significant digits or so.
func num(x float64) string {
	switch {
	case x == 0:
		return "0"
	case x >= 100 || x <= -100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10 || x <= -10:
		return fmt.Sprintf("%.1f", x)
	case x >= 1 || x <= -1:
		return fmt.Sprintf("%.2f", x)
	default:
		return fmt.Sprintf("%.3f", x)
	}
}

// WriteJSON writes the report to path, creating its directory.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		if err := os.MkdirAll(path[:i], 0o755); err != nil {
			return fmt.Errorf("create report directory: %w", err)
		}
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
