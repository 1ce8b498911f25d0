package proc

import (
	"bytes"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The process family: everything a run of the agent started, however it
// detached, ends with the run (specs/reliability.md).
//
//   - sup is a child subreaper (PR_SET_CHILD_SUBREAPER): a daemon the agent
//     double-forks (setsid, SIGHUP ignored) is reparented to sup instead of
//     init, so its ancestry still leads to sup and the run's end finds it.
//   - Children are forked from one goroutine locked to an OS thread that
//     never exits, with Pdeathsig SIGKILL: Pdeathsig follows the forking
//     thread, and this one lives as long as sup, so a SIGKILLed sup takes
//     the agent with it even when the agent ignores the pty's hangup.
//   - Orphans reparented to sup are reaped by pid (waitid P_PID) on SIGCHLD,
//     never with Wait4(-1), which would steal exec.Cmd's exit statuses.

var (
	familyOnce sync.Once
	spawnReqs  chan spawnReq

	// ownedMu guards owned and is held across every fork, so the orphan
	// reaper never sees a child exec.Cmd has started but not yet recorded.
	ownedMu sync.Mutex
	owned   = map[int]bool{} // pids an exec.Cmd will Wait for
)

type spawnReq struct {
	start func() (pid int, err error)
	reply chan error
}

// BecomeFamilyHead makes sup a subreaper and starts the spawning thread and
// the orphan reaper. Only `sup start` calls it, once.
func BecomeFamilyHead() error {
	var err error
	familyOnce.Do(func() {
		if err = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return
		}
		spawnReqs = make(chan spawnReq)
		go spawnThread()
		chld := make(chan os.Signal, 1)
		signal.Notify(chld, syscall.SIGCHLD)
		go func() {
			for range chld {
				reapOrphans()
			}
		}()
	})
	return err
}

// spawnThread runs every fork on one OS thread that it never unlocks, so
// the thread (the children's Pdeathsig parent) lives as long as sup.
func spawnThread() {
	runtime.LockOSThread()
	for r := range spawnReqs {
		ownedMu.Lock()
		pid, err := r.start()
		if err == nil {
			owned[pid] = true
		}
		ownedMu.Unlock()
		r.reply <- err
	}
}

// forkOwned runs start — which forks a process that an exec.Cmd will wait
// for — on the spawning thread when sup is the family head (else here),
// and records the pid so the orphan reaper leaves it alone.
func forkOwned(start func() (int, error)) error {
	if spawnReqs == nil {
		_, err := start()
		return err
	}
	reply := make(chan error, 1)
	spawnReqs <- spawnReq{start: start, reply: reply}
	return <-reply
}

// disown forgets pid once its exec.Cmd has reaped it.
func disown(pid int) {
	ownedMu.Lock()
	delete(owned, pid)
	ownedMu.Unlock()
}

// reapOrphans reaps the exited processes that were reparented to sup: its
// zombie children that no exec.Cmd owns and that live outside sup's own
// session (sup's helpers, such as the guard, stay in it; the agent's family
// never does, since the agent leads its own session).
func reapOrphans() {
	ownedMu.Lock()
	defer ownedMu.Unlock()
	self, sid := os.Getpid(), unix.Getsid
	mySID, _ := sid(0)
	for _, p := range procTable() {
		if p.ppid != self || !p.zombie || owned[p.pid] || p.sid == mySID {
			continue
		}
		var info unix.Siginfo
		unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOHANG, nil) // Best effort: it is ours and exited.
	}
}

// runFamily lists the live processes of the agent's runs: every process
// whose ancestry leads to sup through a child of sup outside sup's session
// (the agent, or an orphan of it reparented to sup), except skip, from a
// /proc table.
func runFamily(procs []procInfo, skip int) []int {
	if spawnReqs == nil {
		return nil // not the family head (a test driving children directly)
	}
	self := os.Getpid()
	mySID, _ := unix.Getsid(0)
	byPID := make(map[int]procInfo, len(procs))
	for _, p := range procs {
		byPID[p.pid] = p
	}
	var out []int
	for _, p := range procs {
		if p.pid == self || p.pid == skip || p.zombie {
			continue
		}
		// Walk up to sup's child; bounded, in case of a cycle in a racy read.
		q := p
		for range 64 {
			if q.ppid == self || q.ppid <= 1 {
				break
			}
			up, ok := byPID[q.ppid]
			if !ok {
				break
			}
			q = up
		}
		if q.ppid == self && q.sid != mySID {
			out = append(out, p.pid)
		}
	}
	return out
}

// procInfo is the part of /proc/<pid>/stat the family needs.
type procInfo struct {
	pid, ppid, sid int
	zombie         bool
}

// procTable reads the processes the family code decides on. As the family
// head, sup is a subreaper, so every process of a run descends from it
// (its own child, or an orphan reparented to it): the table is sup's
// descendants, found through /proc/PID/task/TID/children, never a listing
// of /proc, which is O(every process on the host) and made each run's end
// (and every SIGCHLD) read a stat file per process on the host.
func procTable() []procInfo {
	if spawnReqs != nil {
		if procs, ok := descendants(os.Getpid()); ok {
			return procs
		}
	}
	return hostTable()
}

// maxDescendants bounds the walk of descendants.
const maxDescendants = 4096

// descendants reads the stat of every descendant of root; ok is false when
// the kernel has no children files (CONFIG_PROC_CHILDREN).
func descendants(root int) ([]procInfo, bool) {
	var out []procInfo
	queue := []int{root}
	for len(queue) > 0 && len(out) < maxDescendants {
		pid := queue[0]
		queue = queue[1:]
		dir := "/proc/" + strconv.Itoa(pid) + "/task/"
		tasks, err := os.ReadDir(dir)
		if err != nil {
			if pid == root {
				return nil, false
			}
			continue
		}
		for _, t := range tasks {
			b, err := os.ReadFile(dir + t.Name() + "/children")
			if err != nil {
				if pid == root && os.IsNotExist(err) {
					return nil, false
				}
				continue
			}
			for _, f := range bytes.Fields(b) {
				kid, err := strconv.Atoi(string(f))
				if err != nil {
					continue
				}
				if p, ok := readStat(kid); ok {
					out = append(out, p)
					queue = append(queue, kid)
				}
			}
		}
	}
	return out, true
}

// hostTable lists every process on the host: for a supervisor that is not
// the family head (tests driving children directly).
func hostTable() []procInfo {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]procInfo, 0, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			out = append(out, p)
		}
	}
	return out
}
