package screen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCasesMatchTmux runs every table case through a real tmux pane of the
// same size and checks that tmux shows what Screen shows, cursor included:
// the hand-written expectations are tmux's behaviour, not our guess. Needs
// tmux; skipped in -short mode.
func TestCasesMatchTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	// A socket in the test's temp dir: nothing is left behind.
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := tmux("new-session", "-d", "-s", "idle", "sleep 600"); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	defer exec.Command("tmux", "-S", sock, "kill-server").Run()
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
