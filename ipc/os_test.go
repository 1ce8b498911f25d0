//go:build linux

package ipc

import "os"

var (
	osGetpid  = os.Getpid
	osGeteuid = os.Geteuid
)
