package supervisor

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// sessionMembers lists the live processes of session sid other than sid
// itself, from /proc. Background jobs of the agent's shell tool live in
// their own process groups, so signalling the leader's group misses them.
func sessionMembers(sid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == sid {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after "(comm)": state ppid pgrp session ...
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 4 || f[0][0] == 'Z' {
			continue
		}
		if s, _ := strconv.Atoi(string(f[3])); s == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// signalSession signals the child's process group and every other process
// still in its session.
func signalSession(sid int, sig syscall.Signal) {
	syscall.Kill(-sid, sig) // Best effort: ESRCH when the group is gone.
	for _, pid := range sessionMembers(sid) {
		syscall.Kill(pid, sig) // Best effort: it may have just exited.
	}
}

// endSession ends what is left of a session whose leader exited: SIGHUP
// (what closing a terminal sends) and SIGCONT (so stopped jobs see it), then
// SIGKILL for whatever ignored the hangup, so no process of a run outlives it
// holding the pty.
func endSession(sid int) {
	signalSession(sid, syscall.SIGHUP)
	signalSession(sid, syscall.SIGCONT)
	deadline := time.Now().Add(200 * time.Millisecond)
	for len(sessionMembers(sid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	signalSession(sid, syscall.SIGKILL)
}
