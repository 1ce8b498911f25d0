package testutil

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Proc is one process as /proc/<pid>/stat describes it.
type Proc struct {
	PID   int
	PPID  int
	PGID  int  // process group
	SID   int  // session
	State byte // 'R', 'S', 'Z' (zombie), ...
	Comm  string
}

// String formats p for failure messages.
func (p Proc) String() string {
	return fmt.Sprintf("pid=%d ppid=%d pgid=%d sid=%d state=%c comm=%s", p.PID, p.PPID, p.PGID, p.SID, p.State, p.Comm)
}

// dead reports whether p has exited and only waits to be reaped.
func (p Proc) dead() bool { return p.State == 'Z' || p.State == 'X' }

// ProcessAlive reports whether process pid exists and has not exited. A
// zombie counts as gone: it has ended, and only its parent can remove it.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return false
	}
	p, err := readProc(pid)
	return err == nil && !p.dead()
}

// GroupAlive reports whether any process of process group pgid is alive
// (zombies aside, as for [ProcessAlive]).
func GroupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	return len(GroupMembers(pgid)) > 0
}

// GroupMembers returns the live processes whose process group is pgid.
func GroupMembers(pgid int) []Proc {
	return matching(func(p Proc) bool { return p.PGID == pgid })
}

// SessionMembers returns the live processes whose session is sid. Unlike
// a process group, a session keeps every descendant that did not call
// setsid, so it is the better net for "nothing the child started is left".
func SessionMembers(sid int) []Proc {
	return matching(func(p Proc) bool { return p.SID == sid })
}

func matching(keep func(Proc) bool) []Proc {
	var out []Proc
	for _, p := range Procs() {
		if !p.dead() && keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// Procs lists every process in /proc. Processes that exit during the scan
// are left out.
func Procs() []Proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := readProc(pid); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func readProc(pid int) (Proc, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, err
	}
	// "pid (comm) state ppid pgrp session ...": comm may hold spaces and
	// parentheses, so split at the last ')'.
	s := string(b)
	lp, rp := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if lp < 0 || rp < lp {
		return Proc{}, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	f := strings.Fields(s[rp+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return Proc{}, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	p := Proc{PID: pid, Comm: s[lp+1 : rp], State: f[0][0]}
	for i, dst := range []*int{&p.PPID, &p.PGID, &p.SID} {
		if *dst, err = strconv.Atoi(f[i+1]); err != nil {
			return Proc{}, fmt.Errorf("/proc/%d/stat: %v", pid, err)
		}
	}
	return p, nil
}

// WaitProcsGone waits until find, a scan of /proc, finds no live process,
// or until deadline, and returns what a last scan still finds then (for
// the caller to kill and log). It scans once, then watches only the
// processes it found (one read of /proc/<pid>/stat each) until they are
// gone, then scans again for any they started meanwhile: a whole scan
// reads every process on the machine, hundreds of them during the suite,
// and the cleanups that repeated it every 50 ms kept a core busy for
// seconds at each test's end (issue 29).
func WaitProcsGone(deadline time.Time, find func() []Proc) []Proc {
	for {
		found := find()
		if len(found) == 0 {
			return nil
		}
		for len(found) > 0 {
			if time.Now().After(deadline) {
				return find() // what is there now, not a pid reused meanwhile
			}
			time.Sleep(pollInterval)
			var alive []Proc
			for _, p := range found {
				if q, err := readProc(p.PID); err == nil && !q.dead() && q.SID == p.SID && q.PGID == p.PGID {
					alive = append(alive, p)
				}
			}
			found = alive
		}
	}
}
