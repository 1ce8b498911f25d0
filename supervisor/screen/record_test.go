//go:build linux

package screen

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/internal/tmux"
)

// Replay fixtures are recordings of real programs running in tmux: the raw
// bytes tmux read from the pane (pipe-pane -O) and, at checkpoints, what
// tmux showed (capture-pane -p) and where its cursor was. They are made by
//
//	SUP_SCREEN_RECORD=1 go test -run TestRecordReplayFixtures ./supervisor/screen/
//
// and committed, so the replay test needs no tmux.

// replayFixture is testdata/replay/<name>.json; the bytes are <name>.bin.
type replayFixture struct {
	Name        string       `json:"name"`
	Command     string       `json:"command"`
	Cols        int          `json:"cols"`
	Rows        int          `json:"rows"`
	TmuxVersion string       `json:"tmux_version"`
	Checkpoints []checkpoint `json:"checkpoints"`
}

// checkpoint is the pane at one moment: after Bytes bytes of the stream.
type checkpoint struct {
	After   string `json:"after"` // the keys sent before it, for humans
	Bytes   int    `json:"bytes"`
	Text    string `json:"text"`
	CursorX int    `json:"cursor_x"`
	CursorY int    `json:"cursor_y"`
	Alt     bool   `json:"alt"`
}

// scenario is a program to record and the keys to send it; each key step
// ends with a checkpoint (the first checkpoint is before any key).
type scenario struct {
	name       string
	cols, rows int
	command    string
	keys       [][]string // send-keys arguments per step
}

func recordScenarios(dir string) []scenario {
	sample := filepath.Join(dir, "sample.txt")
	return []scenario{
		{name: "torture", cols: 80, rows: 24, command: "sh " + filepath.Join(dir, "torture.sh")},
		{name: "agentlike", cols: 80, rows: 24, command: "sh " + filepath.Join(dir, "agentlike.sh")},
		{name: "less", cols: 80, rows: 24,
			command: "env TERM=screen LESS= LESSHISTFILE=- less " + sample,
			keys:    [][]string{{"f"}, {"/", "wide", "Enter"}, {"G"}, {"g"}}},
		{name: "vim", cols: 80, rows: 24,
			command: "env TERM=xterm-256color vim -u NONE -N -i NONE -n " + sample,
			keys: [][]string{
				{":set nu", "Enter"}, {"G"}, {":vsplit", "Enter"}, {"gg", "Down", "Down", "dd"},
				{"o", "inserted 漢字 line", "Escape"}, {":only", "Enter"}, {":q!", "Enter"}, {":q!", "Enter"},
			}},
		{name: "top", cols: 100, rows: 30,
			command: "env TERM=screen-256color top -d 60"},
	}
}

// writeSample writes the file less and vim show: long lines that wrap,
// wide runes, tabs, box drawing and the prompt glyph Claude Code uses.
func writeSample(t *testing.T, path string) {
	var b strings.Builder
	for i := 1; i <= 120; i++ {
		switch {
		case i%17 == 0:
			fmt.Fprintf(&b, "%03d wide 漢字かな混じり文 and ❯\u00a0prompt %s\n", i, strings.Repeat("─", 20))
		case i%11 == 0:
			fmt.Fprintf(&b, "%03d a long line that wraps: %s end\n", i, strings.Repeat("lorem ipsum ", 12))
		case i%7 == 0:
			fmt.Fprintf(&b, "%03d\ttabbed\tcolumns\there\n", i)
		default:
			fmt.Fprintf(&b, "%03d plain line of text number %d\n", i, i)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRecordReplayFixtures(t *testing.T) {
	if os.Getenv("SUP_SCREEN_RECORD") == "" {
		t.Skip("set SUP_SCREEN_RECORD=1 to re-record testdata/replay with tmux")
	}
	dir, err := filepath.Abs("testdata/replay")
	if err != nil {
		t.Fatal(err)
	}
	writeSample(t, filepath.Join(dir, "sample.txt"))
	for _, sc := range recordScenarios(dir) {
		t.Run(sc.name, func(t *testing.T) { record(t, dir, sc) })
	}
}

func record(t *testing.T, dir string, sc scenario) {
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	srv := tmux.Server{Socket: sock, Config: os.DevNull}
	tmux := func(args ...string) string {
		t.Helper()
		out, err := srv.Exec(context.Background(), tmux.Authored(args...))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tmp := t.TempDir()
	gate := filepath.Join(tmp, "go")
	bin := filepath.Join(tmp, "out.bin")
	cmd := fmt.Sprintf("while [ ! -e %s ]; do sleep 0.02; done; %s; exec sleep 1000", gate, sc.command)
	tmux("new-session", "-d", "-s", "rec", "-x", fmt.Sprint(sc.cols), "-y", fmt.Sprint(sc.rows), "sh", "-c", cmd)
	defer srv.Run(context.Background(), "kill-server")
	tmux("set", "-g", "remain-on-exit", "on")
	tmux("pipe-pane", "-O", "-t", "rec", "cat > "+bin)
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fx := replayFixture{Name: sc.name, Command: sc.command, Cols: sc.cols, Rows: sc.rows,
		TmuxVersion: strings.TrimSpace(tmux("-V"))}
	snap := func(after string) {
		testutil.WaitFileQuiet(bin, 300*time.Millisecond, 5*time.Second)
		text := acsText(tmux("capture-pane", "-p", "-e", "-t", "rec") + "\n") // the runner trims the final newline; the fixtures keep it
		var cx, cy, alt int
		fmt.Sscan(tmux("display", "-p", "-t", "rec", "#{cursor_x} #{cursor_y} #{alternate_on}"), &cx, &cy, &alt)
		info, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		fx.Checkpoints = append(fx.Checkpoints, checkpoint{After: after, Bytes: int(info.Size()),
			Text: trimText(text), CursorX: cx, CursorY: cy, Alt: alt == 1})
	}
	snap("start")
	for _, keys := range sc.keys {
		tmux(append([]string{"send-keys", "-t", "rec"}, keys...)...)
		snap(strings.Join(keys, " "))
	}
	tmux("pipe-pane", "-t", "rec")
	testutil.WaitFileQuiet(bin, 300*time.Millisecond, 5*time.Second)
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sc.name+".bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	js, _ := json.MarshalIndent(fx, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, sc.name+".json"), append(js, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes, %d checkpoints", sc.name, len(data), len(fx.Checkpoints))
}

// TestReplayTmux feeds each recording into a Screen and checks every
// checkpoint against what tmux showed at that moment.
func TestReplayTmux(t *testing.T) {
	files, _ := filepath.Glob("testdata/replay/*.json")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/replay")
	}
	for _, f := range files {
		js, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx replayFixture
		if err := json.Unmarshal(js, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		t.Run(fx.Name, func(t *testing.T) {
			data, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".bin")
			if err != nil {
				t.Fatal(err)
			}
			s := New(fx.Cols, fx.Rows)
			done := 0
			for _, cp := range fx.Checkpoints {
				if cp.Bytes > len(data) || cp.Bytes < done {
					t.Fatalf("checkpoint %q: bad byte count %d", cp.After, cp.Bytes)
				}
				s.Write(data[done:cp.Bytes])
				done = cp.Bytes
				if got := s.Text(); got != cp.Text {
					t.Fatalf("after %q (%d bytes): screen differs from tmux\n%s", cp.After, cp.Bytes, diffText(cp.Text, got))
				}
				x, y, _ := s.Cursor()
				if x != min(cp.CursorX, fx.Cols-1) || y != cp.CursorY || s.AltScreen() != cp.Alt {
					t.Fatalf("after %q: cursor %d,%d alt %v; tmux %d,%d alt %v", cp.After, x, y, s.AltScreen(), cp.CursorX, cp.CursorY, cp.Alt)
				}
			}
		})
	}
}
