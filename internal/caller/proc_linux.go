package caller

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ProcFS reads the live process table from /proc.
type ProcFS struct{}

func procErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return ErrGone
	}
	return err
}

// Stat reads /proc/PID/stat (one read into a stack buffer: /proc reads
// are the check's cost).
func (ProcFS) Stat(pid int) (Proc, error) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return Proc{}, procErr(err)
	}
	var buf [1024]byte
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil {
		return Proc{}, procErr(err)
	}
	p, err := ParseStat(buf[:max(n, 0)])
	if err != nil {
		return Proc{}, err
	}
	if p.PID != pid {
		return Proc{}, ErrGone
	}
	return p, nil
}

// Owner is the owner of /proc/PID.
func (ProcFS) Owner(pid int) (int, error) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/"+strconv.Itoa(pid), &st); err != nil {
		return 0, procErr(err)
	}
	return int(st.Uid), nil
}

// Exe reads the /proc/PID/exe link.
func (ProcFS) Exe(pid int) (string, error) {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return "", procErr(err)
	}
	return strings.TrimSuffix(exe, " (deleted)"), nil
}

// SelfConfig is the Config of this process deciding: its uid and
// executable; self is its pid when it is a supervisor, else 0.
func SelfConfig(self int) Config {
	exe, _ := ProcFS{}.Exe(os.Getpid()) // Best effort: "" only loses the same-file match.
	return Config{UID: os.Geteuid(), Self: self, SelfExe: exe}
}
