//go:build linux

package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkSimulatedMonth is the disk a month of use takes with the default
// caps: 30 days × 20 sessions, each session's log written 1 MiB (a noisy
// one: sup logs events, not the agent's output) and 50 triggers audited
// (~600-byte lines), every start pruning first as the supervisor does. It
// reports the state dir's size at the end (disk_MB) and the most it held at
// any start (peak_MB), against what was written (written_MB).
func BenchmarkSimulatedMonth(b *testing.B) {
	for b.Loop() {
		dir := b.TempDir()
		c := Limits{}.WithDefaults()
		audit := NewAudit(dir, c.Audit)
		day0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		chunk := []byte(strings.Repeat("l", 4095) + "\n")
		line := []byte(`{"time":1,"trigger_id":"` + strings.Repeat("t", 36) + `","pad":"` + strings.Repeat("a", 500) + `"}`)
		var written, peak int64
		for day := range 30 {
			now := day0.AddDate(0, 0, day)
			audit.Now = func() time.Time { return now }
			live := map[string]bool{}
			for s := range 20 {
				id := fmt.Sprintf("%06x%06x", day, s)
				live[id] = true
				if _, err := PruneLogs(dir, c.Log, now, func(id string) bool { return live[id] }); err != nil {
					b.Fatal(err)
				}
				if u := usage(b, dir); u > peak {
					peak = u
				}
				w, err := OpenLog(filepath.Join(dir, id+".log"), c.Log.MaxSize)
				if err != nil {
					b.Fatal(err)
				}
				for range 256 {
					w.Write(chunk)
				}
				w.Close()
				written += 1 << 20
				for range 50 {
					if err := audit.appendLine(line); err != nil {
						b.Fatal(err)
					}
					written += int64(len(line) + 1)
				}
				end := now.Add(8 * time.Hour)
				for _, p := range []string{id + ".log", id + ".log.1"} {
					os.Chtimes(filepath.Join(dir, p), end, end) // Best effort: .log.1 only when it rotated.
				}
			}
		}
		audit.Close()
		b.ReportMetric(float64(usage(b, dir))/(1<<20), "disk_MB")
		b.ReportMetric(float64(peak)/(1<<20), "peak_MB")
		b.ReportMetric(float64(written)/(1<<20), "written_MB")
	}
}

func usage(b *testing.B, dir string) int64 {
	l, err := Logs(dir)
	if err != nil {
		b.Fatal(err)
	}
	a, err := AuditUsage(dir)
	if err != nil {
		b.Fatal(err)
	}
	return l.Bytes + a.Bytes
}
