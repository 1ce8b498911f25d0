//go:build linux

package ipc

import "syscall"

func umask(m int) int { return syscall.Umask(m) }
