package caller

import (
	"bytes"
	"fmt"
	"strconv"
)

// ParseStat reads /proc/PID/stat's text: pid (comm) state ppid pgrp
// session … starttime (field 22). comm may hold spaces, parentheses and
// newlines: it ends at the last ')'.
func ParseStat(b []byte) (Proc, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Proc{}, fmt.Errorf("stat: no (comm) in %q", trunc(b))
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil || pid <= 0 {
		return Proc{}, fmt.Errorf("stat: pid %q", trunc(b[:open]))
	}
	f := bytes.Fields(b[end+1:])
	// f[0] is state (field 3); starttime is field 22, f[19].
	if len(f) < 20 || len(f[0]) != 1 {
		return Proc{}, fmt.Errorf("stat: %d fields after comm, want at least 20", len(f))
	}
	p := Proc{PID: pid, Comm: string(b[open+1 : end]), Zombie: f[0][0] == 'Z' || f[0][0] == 'X'}
	if p.PPID, err = strconv.Atoi(string(f[1])); err != nil || p.PPID < 0 {
		return Proc{}, fmt.Errorf("stat: ppid %q", f[1])
	}
	if p.SID, err = strconv.Atoi(string(f[3])); err != nil {
		return Proc{}, fmt.Errorf("stat: session %q", f[3])
	}
	if p.Start, err = strconv.ParseUint(string(f[19]), 10, 64); err != nil {
		return Proc{}, fmt.Errorf("stat: starttime %q", f[19])
	}
	return p, nil
}

// trunc bounds what an error quotes.
func trunc(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
