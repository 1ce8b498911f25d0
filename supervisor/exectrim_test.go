//go:build linux

package supervisor

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// execRSS sums the resident kB of this binary's read-only mappings.
func execRSS(t *testing.T) int {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, kb := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 6 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
			in = fs[5] == exe && fs[1][1] == '-'
			continue
		}
		if in && len(fs) >= 2 && fs[0] == "Rss:" {
			n, _ := strconv.Atoi(fs[1])
			kb += n
		}
	}
	return kb
}

// TestDropExecPages: the binary's read-only pages a process touched are
// unmapped, and the process goes on running code from them.
func TestDropExecPages(t *testing.T) {
	before := execRSS(t)
	if before < 1024 {
		t.Fatalf("only %d kB of the test binary mapped: nothing to measure", before)
	}
	if n := dropExecPages(); n == 0 {
		t.Fatal("nothing unmapped")
	}
	after := execRSS(t)
	if after > before/2 {
		t.Fatalf("the binary's resident read-only pages went from %d to %d kB, want under half", before, after)
	}
	t.Logf("binary's resident read-only pages: %d → %d kB", before, after)
}
