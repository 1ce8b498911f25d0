package modelread

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
type FileBudget struct {
	Path string
	Max  int
}

// Take spends one call at now if the host's budget allows it. An
// unreadable file counts as empty (a fresh window); an error means the
// budget could not be kept, and the call is not made.
func (b FileBudget) Take(now time.Time) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(b.Path), 0o700); err != nil {
		return false, fmt.Errorf("model budget: %w", err)
	}
	f, err := os.OpenFile(b.Path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, fmt.Errorf("model budget: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return false, fmt.Errorf("model budget: lock %s: %w", b.Path, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	data := make([]byte, 64<<10)
	n, _ := f.ReadAt(data, 0)
	w := Window{Max: b.Max}
	for _, f := range strings.Fields(string(data[:n])) {
		if ms, err := strconv.ParseInt(f, 10, 64); err == nil {
			w.Calls = append(w.Calls, time.UnixMilli(ms))
		}
	}
	slices.SortFunc(w.Calls, func(a, b time.Time) int { return a.Compare(b) })
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
	return ok, nil
}
