//go:build linux

// Command nounixsock runs a command the way an agent sandbox that denies
// Unix sockets does (Claude Code's sandbox on Linux: a seccomp filter that
// makes socket(AF_UNIX, …) fail with EPERM): `nounixsock CMD ARGS...`. The
// e2e tests use it to check that sup's verbs fail cleanly there.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nounixsock CMD [ARGS...]")
		os.Exit(2)
	}
	runtime.LockOSThread()
	if err := denyUnixSockets(); err != nil {
		fmt.Fprintln(os.Stderr, "nounixsock:", err)
		os.Exit(2)
	}
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "nounixsock:", err)
		os.Exit(2)
	}
	err = syscall.Exec(path, os.Args[1:], os.Environ())
	fmt.Fprintln(os.Stderr, "nounixsock: exec:", err)
	os.Exit(2)
}

// denyUnixSockets installs, for this thread and what it execs, a seccomp
// filter: socket(2) and socketpair(2) with domain AF_UNIX fail with EPERM;
// everything else is allowed. x86_64 and arm64 syscall numbers.
func denyUnixSockets() error {
	var arch, sysSocket, sysPair uint32
	switch runtime.GOARCH {
	case "amd64":
		arch, sysSocket, sysPair = unix.AUDIT_ARCH_X86_64, 41, 53
	case "arm64":
		arch, sysSocket, sysPair = unix.AUDIT_ARCH_AARCH64, 198, 199
	default:
		return fmt.Errorf("no syscall numbers for %s", runtime.GOARCH)
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	filter := []unix.SockFilter{
		{Code: ld, K: 4}, // seccomp_data.arch
		{Code: jeq, Jt: 1, Jf: 0, K: arch},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
		{Code: ld, K: 0}, // nr
		{Code: jeq, Jt: 1, Jf: 0, K: sysSocket},
		{Code: jeq, Jt: 0, Jf: 3, K: sysPair},
		{Code: ld, K: 16}, // args[0], low half: the domain
		{Code: jeq, Jt: 0, Jf: 1, K: unix.AF_UNIX},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}
