//go:build !linux

package ipc

// pidAlive is kill(pid, 0) where there are no pidfds: a zombie counts as
// alive until it is reaped, so a reader of queue facts there may trust a
// dead supervisor's file a little longer (until its socket refuses).
func pidAlive(pid int) bool { return killAlive(pid) }
