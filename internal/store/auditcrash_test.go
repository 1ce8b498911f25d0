//go:build linux

package store

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// TestMain removes the audit helper this process built.
func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveBuilds()
	os.Exit(code)
}

// startHelper starts one appender and collects its acknowledgements;
// writing is closed at its first, so that a kill lands while it writes (on
// a loaded machine a helper may take longer than the kill's random delay
// just to start: then no round exercised anything).
func startHelper(t *testing.T, helper, dir string, run int, acked map[[2]int]bool, mu *sync.Mutex, wg *sync.WaitGroup) (cmd *exec.Cmd, writing <-chan struct{}) {
	t.Helper()
	cmd = exec.Command(helper, dir, strconv.Itoa(run))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // Best effort: killed already when all went well.
	first := make(chan struct{})
	var once sync.Once
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer once.Do(func() { close(first) }) // it died before its first ack
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			n, err := strconv.Atoi(sc.Text())
			if err != nil {
				continue // a torn ack: the kill came mid-print, so that line is not acknowledged
			}
			mu.Lock()
			acked[[2]int{run, n}] = true
			mu.Unlock()
			once.Do(func() { close(first) })
		}
	}()
	return cmd, first
}

// TestAuditSIGKILLDuringRotation kills two concurrent appenders
// (testdata/audithelper) at random points, many times, and then counts:
// every acknowledged line is in the files exactly once, no line is there
// twice, and every line is whole.
func TestAuditSIGKILLDuringRotation(t *testing.T) {
	helper := testutil.BuildPlain(t, "./internal/store/testdata/audithelper")
	dir := t.TempDir()
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	acked := map[[2]int]bool{}
	var mu sync.Mutex
	run := 0
	for range rounds {
		var wg sync.WaitGroup
		var cmds []*exec.Cmd
		var writing []<-chan struct{}
		for range 2 {
			run++
			c, w := startHelper(t, helper, dir, run, acked, &mu, &wg)
			cmds, writing = append(cmds, c), append(writing, w)
		}
		for _, w := range writing {
			select {
			case <-w:
			case <-time.After(30 * time.Second):
				t.Fatal("a helper wrote nothing in 30 s")
			}
		}
		for _, c := range cmds {
			time.Sleep(time.Duration(5+rand.IntN(40)) * time.Millisecond)
			c.Process.Signal(syscall.SIGKILL)
		}
		for _, c := range cmds {
			if err := c.Wait(); err != nil && !strings.Contains(err.Error(), "killed") {
				t.Fatalf("helper: %v", err)
			}
		}
		wg.Wait()
	}

	seen := map[[2]int]int{}
	err := ReadAuditSince(dir, time.Time{}, func(l []byte) {
		var rec struct{ R, N int }
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Errorf("a line is not whole: %q", l)
			return
		}
		seen[[2]int{rec.R, rec.N}]++
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range seen {
		if c > 1 {
			t.Errorf("line %v appears %d times", k, c)
		}
	}
	for k := range acked {
		if seen[k] != 1 {
			t.Errorf("acknowledged line %v appears %d times", k, seen[k])
		}
	}
	dated, _ := datedFiles(dir)
	if len(dated) < rounds {
		t.Errorf("only %d rotations in %d rounds: the kills did not exercise rotation", len(dated), rounds)
	}
	t.Logf("%d runs SIGKILLed, %d lines acknowledged, %d lines on disk, %d rotations", run, len(acked), len(seen), len(dated))
}
