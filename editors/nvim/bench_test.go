//go:build linux

package nvim_test

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// BenchmarkSupTrigger: time from :SupTrigger (the command's start, in
// nvim) to the agent reading the paste (its first byte in fakeagent's
// -record file, watched every 1 ms), one trigger per b.N, sequential;
// reports the median. go test ./editors/nvim -run '^$' -bench SupTrigger -benchtime=20x
func BenchmarkSupTrigger(b *testing.B) {
	sup, rec, work := recordingAgent(b, "first line\nsecond line\n")
	seen := map[string]time.Time{}
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() { // the first sighting of each trigger id in the record
		defer close(watched)
		var off int
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			data, _ := os.ReadFile(rec) // Best effort: absent until the first byte.
			for {
				i := bytes.Index(data[off:], []byte("[BRIDGE_TRIGGER id="))
				if i < 0 {
					break
				}
				start := off + i + len("[BRIDGE_TRIGGER id=")
				end := bytes.IndexByte(data[start:], ' ')
				if end < 0 {
					break
				}
				seen[string(data[start:start+end])] = time.Now()
				off = start + end
			}
		}
	}()
	b.ResetTimer()
	n := startNvim(b, sup, work, fmt.Sprintf(`
function test()
  vim.cmd("normal! ggVj\27")
  for i = 1, %d do
    local sec, usec = vim.loop.gettimeofday()
    local id = require("sup").trigger("agent", 1, 2, {})
    emit("SENT", { id = id, us = string.format("%%d", sec * 1000000 + usec) })
    wait_notes(i)
  end
  emit("RESULT", _G.notes)
end
`, b.N), "notes.txt")
	sent := map[string]int64{}
	for i := 0; i < b.N; i++ {
		var s struct {
			ID string `json:"id"`
			US int64  `json:"us,string"`
		}
		n.next("SENT", &s)
		sent[s.ID] = s.US
	}
	var notes []note
	n.next("RESULT", &notes)
	n.finish()
	b.StopTimer()
	close(stop)
	<-watched
	var lat []float64
	for id, us := range sent {
		at, ok := seen[id]
		if !ok {
			b.Fatalf("trigger %s never reached the agent; notes %+v", id, notes)
		}
		lat = append(lat, float64(at.UnixMicro()-us)/1000)
	}
	sort.Float64s(lat)
	b.ReportMetric(lat[len(lat)/2], "ms-median-to-agent")
	b.ReportMetric(lat[len(lat)-1], "ms-max-to-agent")
}

// BenchmarkStatusline: the cost of one require("sup").statusline() call
// with two watched sessions, one stuck, measured in Lua with
// vim.loop.hrtime over b.N calls.
func BenchmarkStatusline(b *testing.B) {
	sup := testutil.NewRig(b, "")
	sup.Start("a", "-echo")
	sup.Start("b", "-echo")
	ipctest.Hook(b, sup.Socket("a"), "a", "Stop")
	sup.Socket("b")
	n := startNvim(b, sup, b.TempDir(), `
function test()
  local sup = require("sup")
  sup.statusline()
  if not vim.wait(10000, function() return sup.statusline() ~= "" end, 5) then
    error("the statusline never showed the stuck session")
  end
  local t0 = vim.loop.hrtime()
  for _ = 1, `+strconv.Itoa(b.N)+` do sup.statusline() end
  emit("RESULT", { ns = (vim.loop.hrtime() - t0) })
end
`)
	var res struct {
		NS float64 `json:"ns"`
	}
	n.next("RESULT", &res)
	n.finish()
	b.ReportMetric(res.NS/float64(b.N), "ns/statusline")
}
