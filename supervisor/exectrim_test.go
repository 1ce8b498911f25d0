//go:build linux

package supervisor

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
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

// TestDropExecPagesDeletedBinary: after an upgrade deleted the binary a
// supervisor runs from (smaps then says "PATH (deleted)"), and for a path
// with a space, its pages are still found — by device and inode — and
// dropped (the attack trial: by path, nothing was).
func TestDropExecPagesDeletedBinary(t *testing.T) {
	if os.Getenv("SUP_TEST_DELETED_EXE") == "1" {
		if err := os.Remove(os.Args[0]); err != nil {
			fmt.Println("remove:", err)
			os.Exit(1)
		}
		fmt.Println("dropped", dropExecPages())
		os.Exit(0)
	}
	cp := filepath.Join(t.TempDir(), "sup upgraded")
	testutil.CopyExecutable(t, cp)
	cmd := exec.Command(cp, "-test.run=^TestDropExecPagesDeletedBinary$")
	cmd.Env = append(os.Environ(), "SUP_TEST_DELETED_EXE=1")
	out, err := cmd.CombinedOutput()
	var n int
	if _, serr := fmt.Sscanf(string(out), "dropped %d", &n); err != nil || serr != nil || n == 0 {
		t.Fatalf("a process whose binary was deleted: %v %q, want some bytes dropped", err, out)
	}
	t.Logf("dropped %d bytes of a deleted binary's pages", n)
}
