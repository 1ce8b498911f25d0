//go:build linux

package screen

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestCasesMatchTmux runs every table case through a real tmux pane of the
// same size and checks that tmux shows what Screen shows, cursor included:
// the hand-written expectations are tmux's behaviour, not our guess. Needs
// tmux; skipped in -short mode.
func TestCasesMatchTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	// testutil's private server: cleaned up even when the test fails.
	m := testutil.NewTmux(t)
	dir := t.TempDir()
	var tables []string
	for name := range allCases {
		tables = append(tables, name)
	}
	sort.Strings(tables)
	type tableCase struct {
		table string
		c     screenCase
	}
	var cases []tableCase
	var replays []replay
	for _, table := range tables {
		for _, c := range allCases[table] {
			cols, rows := c.size()
			path := filepath.Join(dir, fmt.Sprintf("case%d", len(cases)+1))
			if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			cases = append(cases, tableCase{table, c})
			replays = append(replays, replay{path, cols, rows})
		}
	}
	for i, shot := range tmuxReplay(t, m, replays) {
		table, c, cols := cases[i].table, cases[i].c, replays[i].cols
		want := strings.ReplaceAll(trimText(acsText(shot.capture)), "\n", "|")
		s := sc(cols, replays[i].rows, c.in)
		got := strings.ReplaceAll(s.Text(), "\n", "|")
		x, y, _ := s.Cursor()
		same := got == want && x == min(shot.cx, cols-1) && y == shot.cy
		if c.tmuxDiffers != "" {
			if same {
				t.Errorf("%s/%s: marked as differing from tmux (%s) but matches it", table, c.name, c.tmuxDiffers)
			}
			continue
		}
		if !same {
			t.Errorf("%s/%s: tmux shows %q cursor %d,%d; Screen %q cursor %d,%d", table, c.name, want, shot.cx, shot.cy, got, x, y)
		}
	}
}
