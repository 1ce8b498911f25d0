//go:build linux

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// StatusKB returns a "kB" field of /proc/<pid>/status (VmRSS, VmHWM, ...).
func StatusKB(pid int, field string) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read status of %d: %w", pid, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				return 0, fmt.Errorf("parse %s of %d: %w", field, pid, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("no %s in the status of %d", field, pid)
}

// ContextSwitches returns the voluntary and involuntary context switches
// of every thread of pid, summed: each is a time a thread went to sleep or
// was preempted, so over an idle period they count wake-ups.
func ContextSwitches(pid int) (int, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("threads of %d: %v", pid, err)
	}
	total := 0
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // Best effort: a thread may end meanwhile.
		}
		for _, l := range strings.Split(string(b), "\n") {
			for _, f := range []string{"voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:"} {
				if v, ok := strings.CutPrefix(l, f); ok {
					n, _ := strconv.Atoi(strings.TrimSpace(v))
					total += n
				}
			}
		}
	}
	return total, nil
}

// CPUTicks returns pid's user + system time in clock ticks (1/100 s on
// Linux) from /proc/<pid>/stat.
func CPUTicks(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read stat of %d: %w", pid, err)
	}
	s := string(b)
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14, stime 15.
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short stat of %d", pid)
	}
	u, err1 := strconv.Atoi(f[11])
	st, err2 := strconv.Atoi(f[12])
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse stat of %d: %q", pid, s)
	}
	return u + st, nil
}

// Children returns pid's child processes from the task children files
// (CONFIG_PROC_CHILDREN): a supervisor's guard and its agent.
func Children(pid int) []int {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid)) // Best effort: gone means none.
	var out []int
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
