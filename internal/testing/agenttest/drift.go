//go:build linux

package agenttest

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
)

// The version-drift table: with SUP_AGENTS=latest every test that starts
// a real agent (StartUnderSup) or checks a corpus moment records its
// outcome here, and TestMain prints agent × version × scenario × result
// when the run ends (specs/testing.md, "Version drift").
var drift struct {
	sync.Mutex
	rows []driftRow
}

type driftRow struct {
	agent, version, scenario, result string
}

// recordDrift notes t's outcome for agent in the drift table when t ends
// (SUP_AGENTS=latest only).
func recordDrift(t testing.TB, agent string) {
	if !Latest() {
		return
	}
	version := AgentVersion(t, agent)
	t.Cleanup(func() {
		result := "pass"
		switch {
		case t.Failed():
			result = "FAIL"
		case t.Skipped():
			result = "skip"
		}
		drift.Lock()
		defer drift.Unlock()
		drift.rows = append(drift.rows, driftRow{agent, version, t.Name(), result})
	})
}

// PrintDriftTable writes the drift table, sorted by agent then scenario,
// and a count of failures per agent; nothing if no row was recorded.
func PrintDriftTable(w io.Writer) {
	drift.Lock()
	rows := append([]driftRow(nil), drift.rows...)
	drift.Unlock()
	if len(rows) == 0 {
		return
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].agent != rows[j].agent {
			return rows[i].agent < rows[j].agent
		}
		return rows[i].scenario < rows[j].scenario
	})
	fmt.Fprintf(w, "\nSUP_AGENTS=latest: agent version × scenario\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tversion\tscenario\tresult")
	failed := map[string]int{}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.agent, r.version, r.scenario, r.result)
		if r.result == "FAIL" {
			failed[r.agent+" "+r.version]++
		}
	}
	tw.Flush()
	var summary []string
	for k, n := range failed {
		summary = append(summary, fmt.Sprintf("%s: %d failed", k, n))
	}
	sort.Strings(summary)
	if len(summary) == 0 {
		summary = []string{"all passed"}
	}
	fmt.Fprintf(w, "%s\n", strings.Join(summary, "; "))
}
