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

// Stat reads /proc/PID/stat and the owner of /proc/PID.
func (ProcFS) Stat(pid int) (Proc, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Proc{}, procErr(err)
	}
	p, err := ParseStat(b)
	if err != nil {
		return Proc{}, err
	}
	if p.PID != pid {
		return Proc{}, ErrGone
	}
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return Proc{}, procErr(err)
	}
	p.UID = int(st.Uid)
	return p, nil
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
