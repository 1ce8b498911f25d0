//go:build linux

package bench

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// floodPane times fakeagent's flood in a pane that an attached client
// shows, from a `wait-for` just before the child's exec to one just after
// it ends; with sup, sup runs that same sh as its child (the shell
// profile), so both are timed by the same two signals inside the pane and
// sup's start-up is outside the window. The client makes tmux draw every
// update to a terminal, as a human's pane does.
//
// It also returns the CPU ticks the tmux server and (via sup) the
// supervisor spent in the window: where a slower round's time went.
//
// via says what stands between the flood and the pane: nothing, sup, or
// one of the two reference relays — util-linux's script(1), a C
// poll/read/write loop, and testdata/ptyrelay, Go's io.Copy from a pty —
// which do no work of their own: what a pty hop costs on the machine
// whoever relays it.
func floodPane(t *testing.T, tm *testutil.Tmux, e *benchEnv, via relay, fake string, n int) (d time.Duration, tmuxTicks, supTicks int) {
	viaSup := via.kind == relaySup
	var words []string
	for _, w := range floodArgs(fake, n) {
		words = append(words, shellquote.Quote(w))
	}
	signal := "tmux -L " + tm.Name + " wait-for -S "
	script := signal + "started; " + strings.Join(words, " ") + "; " + signal + "flooded"
	argv := []string{"sh", "-c", script}
	var env map[string]string
	switch via.kind {
	case relayScript:
		argv = []string{"script", "-qfec", "sh -c " + shellquote.Quote(script), "/dev/null"}
	case relayGo:
		argv = append([]string{via.bin}, argv...)
	}
	if viaSup {
		argv = append([]string{e.sup, "start", "--profile", "shell", e.doc(), "--"}, argv...)
		env = map[string]string{
			"SUP_RUNTIME_DIR": e.rt,
			"XDG_STATE_HOME":  filepath.Join(e.dir, "state"),
			"XDG_CONFIG_HOME": filepath.Join(e.dir, "config"),
		}
	}
	pane := tm.NewWindow(env, argv...)
	defer tm.KillPane(pane)
	if _, err := tm.Run("select-window", "-t", pane); err != nil {
		t.Fatalf("select the flood's window: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv := tm.Server()
	srv.Timeout = 5 * time.Minute
	server, err := tm.Run("display-message", "-p", "#{pid}")
	if err != nil {
		t.Fatalf("tmux server pid: %v", err)
	}
	serverPID, _ := strconv.Atoi(strings.TrimSpace(server))
	supPID := tm.PanePID(pane)
	if _, err := srv.Run(ctx, "wait-for", "started"); err != nil {
		t.Fatalf("tmux wait-for started: %v", err)
	}
	start := time.Now()
	tm0, _ := CPUTicks(serverPID)
	sup0, _ := CPUTicks(supPID)
	if _, err := srv.Run(ctx, "wait-for", "flooded"); err != nil {
		t.Fatalf("tmux wait-for flooded: %v", err)
	}
	d = time.Since(start)
	tm1, _ := CPUTicks(serverPID)
	if viaSup {
		sup1, _ := CPUTicks(supPID)
		supTicks = sup1 - sup0
	}
	return d, tm1 - tm0, supTicks
}

// benchPaneFlood: the flood in a tmux pane with a client attached, bare
// and through sup, interleaved round by round (issue 30's figure: what a
// human sees when an agent's pane floods).
// relay is what a flood passes through on its way to the pane.
type relay struct {
	kind relayKind
	bin  string // relayGo: testdata/ptyrelay
}

type relayKind int

const (
	relayNone relayKind = iota
	relaySup
	relayScript
	relayGo
)

func benchPaneFlood(t *testing.T, e *benchEnv, sz sizes) []Figure {
	fake := testutil.FakeAgent(t)
	goRelay := relay{kind: relayGo, bin: testutil.BuildPackage(t, "./testdata/ptyrelay")}
	_, err := exec.LookPath("script")
	haveScript := err == nil
	tm := testutil.NewTmux(t)
	tm.AttachClient(t)
	n := sz.paneFloodBytes
	mbs := func(d time.Duration) float64 { return float64(n) / 1e6 / d.Seconds() }
	var bare, sup, ratios, scriptRatios, goRatios []float64
	var tmuxBare, tmuxSup, supCPU int
	for range sz.paneFloodRuns {
		db, tb, _ := floodPane(t, tm, e, relay{}, fake, n)
		ds, ts, ss := floodPane(t, tm, e, relay{kind: relaySup}, fake, n)
		dg, _, _ := floodPane(t, tm, e, goRelay, fake, n)
		b, s := mbs(db), mbs(ds)
		bare, sup, ratios = append(bare, b), append(sup, s), append(ratios, s/b)
		goRatios = append(goRatios, mbs(dg)/b)
		if haveScript {
			dc, _, _ := floodPane(t, tm, e, relay{kind: relayScript}, fake, n)
			scriptRatios = append(scriptRatios, mbs(dc)/b)
		}
		tmuxBare, tmuxSup, supCPU = tmuxBare+tb, tmuxSup+ts, supCPU+ss
	}
	floor := "; any relay ÷ bare, median: Go io.Copy (testdata/ptyrelay) " + strconv.FormatFloat(Percentile(goRatios, 50), 'f', 2, 64)
	if haveScript {
		floor += ", C script(1) " + strconv.FormatFloat(Percentile(scriptRatios, 50), 'f', 2, 64)
	} else {
		floor += ", C script(1) not installed (util-linux)"
	}
	mb := float64(n) / 1e6 * float64(sz.paneFloodRuns)
	perMB := func(ticks int) string { return strconv.FormatFloat(float64(ticks)*10/mb, 'f', 1, 64) }
	section := fmt.Sprintf("2. passthrough throughput (%d MiB flood in a tmux pane, client attached)", n>>20)
	f := Figure{Section: section, Name: "sup start in the pane", Unit: "MB/s", Goal: "≥ 0.85× bare pane",
		Note: "per-round ratios " + joinFloats(ratios) + ", median " + strconv.FormatFloat(Percentile(ratios, 50), 'f', 2, 64) +
			"; CPU ms/MB: tmux server " + perMB(tmuxBare) + " bare, " + perMB(tmuxSup) + " via sup; sup " + perMB(supCPU) +
			floor + "; loadavg " + loadavg()}
	f.Summarise(sup)
	f.SummariseBaseline("bare pane", bare)
	f.Judge(f.Ratio >= 0.85)
	return []Figure{f}
}

func joinFloats(xs []float64) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(strconv.FormatFloat(x, 'f', 2, 64))
	}
	return b.String()
}
