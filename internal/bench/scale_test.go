//go:build linux

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
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

// stickAll makes every supervisor wait on the human (a Stop hook, as
// `sup hook` sends), so status-line reads the worst case: every file a
// queue member.
func (e *benchEnv) stickAll() {
	socks, err := filepath.Glob(filepath.Join(e.rt, "*.sock"))
	if err != nil {
		e.t.Fatal(err)
	}
	for _, sock := range socks {
		c, err := ipc.Dial(sock, 5*time.Second)
		if err != nil {
			e.t.Fatalf("dial %s: %v", sock, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = c.Call(ctx, ipc.MethodHook, ipc.HookParams{Agent: "claude", Event: "Stop"}, nil)
		cancel()
		c.Close()
		if err != nil {
			e.t.Fatalf("hook %s: %v", sock, err)
		}
	}
}

// benchScale: `sup ls --json` over growing numbers of live supervisors,
// each running `sleep`, then `sup status-line` with all of them stuck.
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
	e.stickAll()
	f := Figure{Section: section, Name: fmt.Sprintf("sup status-line, %d supervisors, all stuck", n), Unit: "ms", Goal: "≤ 10 ms"}
	lat, out := e.timeCommand(sz.lsCalls, "status-line")
	if want := fmt.Sprintf("⚠ %d stuck · next: ", n); !strings.HasPrefix(out, want) {
		t.Fatalf("sup status-line with %d stuck supervisors: %q, want %q…", n, out, want)
	}
	f.Summarise(lat)
	f.Judge(f.P95 <= 10)
	return append(figs, f)
}
