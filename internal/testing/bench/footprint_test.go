//go:build linux

package bench

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// packProfiles are the built-in profiles with screen rules, each measured
// idle beside the shell's supervisor.
var packProfiles = []string{"claude", "codex", "gemini"}

// benchFootprint: an idle supervisor's memory, CPU and wake-ups, and the
// cost of starting one.
func benchFootprint(t *testing.T, e *benchEnv, sz sizes) []Figure {
	const section = "5. footprint (supervisor of an idle `sleep`)"
	socks, _ := filepath.Glob(filepath.Join(e.rt, "*.sock"))
	p := e.start("sleep", "3600")
	p.discard()
	// The same idle child under each pack profile, watched over the same
	// window: their timers (stall watch, fallback) differ from the shell's.
	others := map[string]*supProc{}
	for _, prof := range packProfiles {
		others[prof] = e.startProfile(prof, "sleep", "3600")
		others[prof].discard()
	}
	e.waitNewSockets(socks, 1+len(packProfiles))
	// Past start-up, and past the one collection an idle supervisor makes
	// 2 s after its last look (specs/performance.md, "Idle memory"; a
	// shell's looks come at 0.1, 0.4 and 1.6 s), which is no periodic
	// wake-up and is not counted as one.
	time.Sleep(5 * time.Second)
	pid := p.pid()
	others0 := map[string]int{}
	for prof, o := range others {
		others0[prof], _ = ContextSwitches(o.pid())
	}
	cs0, err := ContextSwitches(pid)
	if err != nil {
		t.Fatal(err)
	}
	cpu0, err := CPUTicks(pid)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(sz.idle * float64(time.Second)))
	cs1, _ := ContextSwitches(pid)
	cpu1, _ := CPUTicks(pid)
	// Memory at the end of the idle window: an idle supervisor returns its
	// start-up's free heap 2 s after its last look (specs/performance.md,
	// "Idle memory"), so a figure taken in its first seconds is start-up's.
	rss, err := StatusKB(pid, "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	anon, err := StatusKB(pid, "RssAnon")
	if err != nil {
		t.Fatal(err)
	}
	p.stop()
	var perProfile []Figure
	for _, prof := range packProfiles {
		n, _ := ContextSwitches(others[prof].pid())
		pa, err := StatusKB(others[prof].pid(), "RssAnon")
		if err != nil {
			t.Fatal(err)
		}
		others[prof].stop()
		fpa := Figure{Section: section, Name: fmt.Sprintf("idle private memory (RssAnon), %s profile", prof), Unit: "MB", Goal: "≤ 4 MB"}
		fpa.Summarise([]float64{float64(pa) / 1024})
		fpa.Judge(fpa.Median <= 4)
		perProfile = append(perProfile, fpa)
		w := float64(n-others0[prof]) / sz.idle
		f := Figure{Section: section, Name: fmt.Sprintf("idle wake-ups, %s profile (context switches, %gs)", prof, sz.idle),
			Unit: "/s", Goal: "no periodic wake-ups", Note: fmt.Sprintf("%d switches in %gs", n-others0[prof], sz.idle)}
		f.Summarise([]float64{w})
		f.Judge(w < 0.5)
		perProfile = append(perProfile, f)
	}

	fr := Figure{Section: section, Name: "idle RSS", Unit: "MB", Goal: "≤ 12 MB",
		Note: "the binary's file-backed pages included: one copy in memory for every supervisor of the same sup"}
	fr.Summarise([]float64{float64(rss) / 1024})
	fr.Judge(fr.Median <= 12)
	// What each more supervisor costs: its own pages (heap, stacks), not
	// the binary's, which the page cache shares between them.
	fa := Figure{Section: section, Name: "idle private memory (RssAnon)", Unit: "MB", Goal: "≤ 4 MB"}
	fa.Summarise([]float64{float64(anon) / 1024})
	fa.Judge(fa.Median <= 4)
	wakes := float64(cs1-cs0) / sz.idle
	fw := Figure{Section: section, Name: fmt.Sprintf("idle wake-ups (context switches, %gs)", sz.idle), Unit: "/s",
		Goal: "no periodic wake-ups", Note: fmt.Sprintf("%d switches, %d ms CPU in %gs", cs1-cs0, (cpu1-cpu0)*10, sz.idle)}
	fw.Summarise([]float64{wakes})
	// A periodic timer of even 1 Hz shows as ≥ 1 switch a second.
	fw.Judge(wakes < 0.5)

	startups, cpu, _ := e.timeCommandCPU(sz.startups, "start", "--profile", "shell", e.doc(), "--", "true")
	var direct []float64
	for range sz.startups {
		t0 := time.Now()
		if err := exec.Command("true").Run(); err != nil {
			t.Fatal(err)
		}
		direct = append(direct, ms(time.Since(t0)))
	}
	fs := Figure{Section: section, Name: "sup start -- true (to sup's exit)", Unit: "ms", Goal: "≤ 100 ms", Note: cpuNote(cpu)}
	fs.Summarise(startups)
	fs.SummariseBaseline("exec true", direct)
	fs.Judge(fs.Median <= 100)
	return append([]Figure{fr, fa, fw}, append(perProfile, fs)...)
}
