package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// timeCommand runs `sup args...` n times and returns each run's wall time
// in ms and the first run's output.
func (e *benchEnv) timeCommand(n int, args ...string) ([]float64, string) {
	var out []float64
	first := ""
	for i := range n {
		cmd := e.command(args...)
		t0 := time.Now()
		b, err := cmd.Output()
		out = append(out, ms(time.Since(t0)))
		if err != nil {
			e.t.Fatalf("sup %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		if i == 0 {
			first = string(b)
		}
	}
	return out, first
}

// hasCommand reports whether the built sup has the verb: urfave/cli says
// "No help topic" for one it does not know.
func (e *benchEnv) hasCommand(verb string) bool {
	b, _ := e.command("help", verb).CombinedOutput() // An unknown verb fails; its text says so.
	return !strings.Contains(string(b), "No help topic")
}

// benchScale: `sup ls --json` (and `sup status-line`) over growing numbers
// of live supervisors, each running `sleep`.
func benchScale(t *testing.T, e *benchEnv, sz sizes) []Figure {
	const section = "4. scale (live supervisors, each running sleep)"
	var figs []Figure
	running := 0
	for i, n := range sz.scale {
		for ; running < n; running++ {
			e.start("sleep", "3600").discard()
		}
		e.waitSockets(n)
		lat, out := e.timeCommand(sz.lsCalls, "ls", "--json")
		var sessions []map[string]any
		if err := json.Unmarshal([]byte(out), &sessions); err != nil || len(sessions) != n {
			t.Fatalf("sup ls --json with %d supervisors: %d sessions, %v", n, len(sessions), err)
		}
		f := Figure{Section: section, Name: fmt.Sprintf("sup ls --json, %d supervisors", n), Unit: "ms"}
		f.Summarise(lat)
		if i == len(sz.scale)-1 {
			f.Goal = fmt.Sprintf("≤ 100 ms at %d", n)
			f.Judge(f.P95 <= 100)
		}
		figs = append(figs, f)
	}
	n := sz.scale[len(sz.scale)-1]
	f := Figure{Section: section, Name: fmt.Sprintf("sup status-line, %d supervisors", n), Unit: "ms", Goal: "≤ 10 ms"}
	if e.hasCommand("status-line") {
		lat, _ := e.timeCommand(sz.lsCalls, "status-line")
		f.Summarise(lat)
		f.Judge(f.P95 <= 10)
	} else {
		f.Note = "not built: this sup has no status-line verb (issue 7)"
	}
	return append(figs, f)
}
