package modelread

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// BudgetWindow is the span the budget counts calls over.
const BudgetWindow = time.Hour

// Window is a sliding window of call times: at most Max calls within any
// BudgetWindow. Pure: the caller gives the time.
type Window struct {
	Max   int
	Calls []time.Time // oldest first
}

// Take spends one call at now if the window allows it.
func (w *Window) Take(now time.Time) bool {
	cut := 0
	for cut < len(w.Calls) && now.Sub(w.Calls[cut]) >= BudgetWindow {
		cut++
	}
	w.Calls = w.Calls[cut:]
	if len(w.Calls) >= w.Max {
		return false
	}
	w.Calls = append(w.Calls, now)
	return true
}

// FileBudget is the host's budget, shared by every supervisor on it: the
// window lives in a file under sup's runtime directory, read and written
// under an exclusive flock, so 20 sessions spend one budget.
//
// The file sits where every agent can reach it (the runtime dir is
// $SUP_SOCKET's), so it is not trusted to keep the count alone: each
// supervisor remembers the window it last wrote and merges it back on every
// call, so deleting, truncating or rewriting the file with fewer calls
// cannot reset the budget while a supervisor that spent it runs. A damaged
// file (a word that is not a time, or too big to be a window) counts as a
// spent window for the next BudgetWindow; a time in the future counts as
// now. A symlink or a file that is not a regular file is an error, and
// the call is not made. Safe for concurrent use.
type FileBudget struct {
	Path string
	Max  int

	mu   sync.Mutex
	kept []time.Time // the window this supervisor last wrote
}

// budgetFileMax bounds the file: a window of the largest budget (3600
// calls) is about 50 KB.
const budgetFileMax = 64 << 10

// Take spends one call at now if the host's budget allows it. An error
// means the budget could not be kept, and the call is not made.
func (b *FileBudget) Take(now time.Time) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now = time.UnixMilli(now.UnixMilli()) // the file's precision, so kept and read calls compare equal
	if err := os.MkdirAll(filepath.Dir(b.Path), 0o700); err != nil {
		return false, fmt.Errorf("model budget: %w", err)
	}
	f, err := os.OpenFile(b.Path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return false, fmt.Errorf("model budget: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, fmt.Errorf("model budget: %s is not a regular file (remove it)", b.Path)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return false, fmt.Errorf("model budget: lock %s: %w", b.Path, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	data := make([]byte, budgetFileMax+1)
	n, _ := f.ReadAt(data, 0)
	w := Window{Max: b.Max, Calls: mergeCalls(parseWindow(data[:n], b.Max, now), b.kept)}
	ok := w.Take(now)
	var out strings.Builder
	for _, c := range w.Calls {
		out.WriteString(strconv.FormatInt(c.UnixMilli(), 10))
		out.WriteByte('\n')
	}
	if err := f.Truncate(0); err != nil {
		return false, fmt.Errorf("model budget: %w", err)
	}
	if _, err := f.WriteAt([]byte(out.String()), 0); err != nil {
		return false, fmt.Errorf("model budget: %w", err)
	}
	b.kept = slices.Clone(w.Calls)
	return ok, nil
}

// parseWindow reads the file's calls, oldest first. A damaged file is a
// spent window (max calls at now): failing safe costs an hour of readings,
// failing open would let anything that can write the file lift the budget.
func parseWindow(data []byte, max int, now time.Time) []time.Time {
	if len(data) > budgetFileMax {
		return spent(max, now)
	}
	var calls []time.Time
	for _, f := range strings.Fields(string(data)) {
		ms, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return spent(max, now)
		}
		c := time.UnixMilli(ms)
		if c.After(now) {
			c = now
		}
		calls = append(calls, c)
	}
	slices.SortFunc(calls, func(a, b time.Time) int { return a.Compare(b) })
	return calls
}

func spent(max int, now time.Time) []time.Time {
	calls := make([]time.Time, max)
	for i := range calls {
		calls[i] = now
	}
	return calls
}

// mergeCalls is the union of two sorted windows as multisets: a call time
// in both counts as many times as in the one that has it more often.
func mergeCalls(a, b []time.Time) []time.Time {
	out := make([]time.Time, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].Before(b[j])):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].Before(a[i]):
			out = append(out, b[j])
			j++
		default: // equal
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}
