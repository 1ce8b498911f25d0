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
	tmux, sock := m.Run, m.SocketPath
	dir := t.TempDir()
	var tables []string
	for name := range allCases {
		tables = append(tables, name)
	}
	sort.Strings(tables)
	n := 0
	for _, table := range tables {
		for _, c := range allCases[table] {
			n++
			cols, rows := c.size()
			path := filepath.Join(dir, fmt.Sprintf("case%d", n))
			if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			done, sess := fmt.Sprintf("done%d", n), fmt.Sprintf("c%d", n)
			script := fmt.Sprintf("stty raw -echo; cat '%s'; tmux -S '%s' wait-for -S %s; exec sleep 600", path, sock, done)
			if out, err := tmux("new-session", "-d", "-s", sess, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), script); err != nil {
				t.Fatalf("tmux: %v: %s", err, out)
			}
			tmux("wait-for", done)
			capture, _ := tmux("capture-pane", "-p", "-e", "-t", sess)
			pos, _ := tmux("display", "-p", "-t", sess, "#{cursor_x} #{cursor_y}")
			tmux("kill-session", "-t", sess)
			var tx, ty int
			fmt.Sscan(pos, &tx, &ty)
			want := strings.ReplaceAll(trimText(acsText(capture)), "\n", "|")
			s := sc(cols, rows, c.in)
			got := strings.ReplaceAll(s.Text(), "\n", "|")
			x, y, _ := s.Cursor()
			same := got == want && x == min(tx, cols-1) && y == ty
			if c.tmuxDiffers != "" {
				if same {
					t.Errorf("%s/%s: marked as differing from tmux (%s) but matches it", table, c.name, c.tmuxDiffers)
				}
				continue
			}
			if !same {
				t.Errorf("%s/%s: tmux shows %q cursor %d,%d; Screen %q cursor %d,%d", table, c.name, want, tx, ty, got, x, y)
			}
		}
	}
}
