package ipc

import (
	"errors"
	"syscall"
)

// SocketLive reports whether a server answers at path (a full backlog
// counts as live). It removes nothing. A path that exists and is not a
// socket is an error.
func SocketLive(path string) (bool, error) {
	st, err := probe(path)
	return st == sockLive, err
}

// SocketStale reports whether path is a socket file nobody listens on:
// what CleanStale would remove. It removes nothing, for reports such as
// `sup doctor`.
func SocketStale(path string) (bool, error) {
	st, err := probe(path)
	return st == sockStale, err
}

// SessionLive reports whether the supervisor of sessionID answers on its
// socket in runtimeDir: the liveness the broker relies on, for callers
// that must never touch a live session's files (log pruning). An invalid
// id or an unreadable path counts as not live.
func SessionLive(runtimeDir, sessionID string) bool {
	path, err := SocketPath(runtimeDir, sessionID)
	if err != nil {
		return false
	}
	live, err := SocketLive(path)
	return live && err == nil
}

// PIDAlive says whether a live process holds pid. A SIGKILLed supervisor
// stays a zombie until its parent reaps it, and the tmux server, its parent
// in a pane, has been seen to leave it unreaped for tens of seconds, so
// kill(pid, 0) is not enough where something better exists: on Linux a
// pidfd (pidalive_linux.go); elsewhere, and on Linux < 5.3, kill(pid, 0)
// decides (killAlive).
func PIDAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	return pidAlive(pid)
}

// killAlive is kill(pid, 0): true while any process holds pid, a zombie
// included (EPERM still means a process holds the pid).
func killAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
