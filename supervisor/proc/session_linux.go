package proc

import (
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
)

// sessionMembers lists the live processes of session sid other than sid
// itself, from a /proc table. Background jobs of the agent's shell tool live
// in their own process groups, so signalling the leader's group misses them.
func sessionMembers(procs []procInfo, sid int) []int {
	var pids []int
	for _, p := range procs {
		if p.sid == sid && p.pid != sid && !p.zombie {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// readStat reads /proc/<pid>/stat (caller.ParseStat: comm may hold
// spaces and parentheses).
func readStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	p, err := caller.ParseStat(b)
	if err != nil || p.PID != pid {
		return procInfo{}, false
	}
	return procInfo{pid: pid, ppid: p.PPID, sid: p.SID, zombie: p.Zombie}, true
}

// runProcesses lists what is left of a run whose leader is sid: the other
// members of its session, and every process whose ancestry leads to sup
// through the agent (daemons that left the session, reparented to sup).
func runProcesses(sid int) []int {
	procs := procTable() // one scan of /proc for both lists
	pids := sessionMembers(procs, sid)
	for _, pid := range runFamily(procs, sid) {
		if !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// signalSession signals the child's process group and every other process
// left of its run.
func signalSession(sid int, sig syscall.Signal) {
	syscall.Kill(-sid, sig) // Best effort: ESRCH when the group is gone.
	for _, pid := range runProcesses(sid) {
		syscall.Kill(pid, sig) // Best effort: it may have just exited.
	}
}

// endSession ends what is left of a run whose leader exited: SIGHUP (what
// closing a terminal sends) and SIGCONT (so stopped jobs see it), then
// SIGKILL for whatever ignored the hangup, so no process of a run outlives
// it, holding the pty or not.
func endSession(sid int) {
	signalSession(sid, syscall.SIGHUP)
	signalSession(sid, syscall.SIGCONT)
	deadline := time.Now().Add(200 * time.Millisecond)
	for len(runProcesses(sid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// Twice: a process may fork while its parent is being killed.
	signalSession(sid, syscall.SIGKILL)
	signalSession(sid, syscall.SIGKILL)
}
