package foreground

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sup-tmux/sup/supervisor/proc"
	"golang.org/x/sys/unix"
)

// Sample reads the facts of the foreground process group of the pty whose
// master is given. procRoot is "/proc" outside tests.
func Sample(master *os.File) (Facts, error) {
	return sample(master, "/proc")
}

func sample(master *os.File, procRoot string) (Facts, error) {
	pgrp, ptn, err := ptyFacts(master)
	if err != nil {
		return Facts{}, err
	}
	g := group{procRoot: procRoot, slave: "/dev/pts/" + strconv.Itoa(ptn),
		unknown: Facts{Pgrp: pgrp, Wait: Unknown, Call: "no task in the group"}}
	// The leader first: usually the group is one process, and a leader
	// that reads settles it without scanning /proc for other members.
	if pg, ok := statPgrp(procRoot, pgrp); ok && pg == pgrp {
		if f, ok := g.look(pgrp); ok {
			return f, nil
		}
	}
	for _, pid := range otherMembers(procRoot, pgrp) {
		if f, ok := g.look(pid); ok {
			return f, nil
		}
	}
	if g.working != nil {
		return *g.working, nil
	}
	return g.unknown, nil
}

// group collects the verdicts of a group's tasks.
type group struct {
	procRoot, slave string
	working         *Facts // the first task that does not read
	unknown         Facts  // what to say when no task would tell
}

// look checks every task of pid; ok when one reads the terminal.
func (g *group) look(pid int) (Facts, bool) {
	for _, tid := range tasks(g.procRoot, pid) {
		w, call := taskWait(g.procRoot, pid, tid, g.slave)
		f := Facts{Pgrp: g.unknown.Pgrp, Wait: w, Task: tid, Call: call}
		switch {
		case w == Reading:
			return f, true
		case w == Working && g.working == nil:
			g.working = &f
		case w == Unknown && g.unknown.Task == 0:
			g.unknown = f
		}
	}
	return Facts{}, false
}

// ptyFacts asks the master for its slave's foreground group and number.
func ptyFacts(master *os.File) (pgrp, ptn int, err error) {
	if pgrp, err = proc.Foreground(master); err != nil {
		return 0, 0, fmt.Errorf("foreground: TIOCGPGRP: %w", err)
	}
	err = proc.FDControl(master, func(fd int) error {
		n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
		ptn = int(n)
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("foreground: TIOCGPTN: %w", err)
	}
	return pgrp, ptn, nil
}

// otherMembers lists the processes of group pgrp other than its leader.
func otherMembers(procRoot string, pgrp int) []int {
	var out []int
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return out
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == pgrp {
			continue
		}
		if g, ok := statPgrp(procRoot, pid); ok && g == pgrp {
			out = append(out, pid)
		}
	}
	return out
}

// statPgrp reads the process group from /proc/PID/stat: the fifth field,
// counted after the command name's closing parenthesis (a name may hold
// spaces and parentheses).
func statPgrp(procRoot string, pid int) (int, bool) {
	b, err := os.ReadFile(procRoot + "/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:])) // state ppid pgrp …
	if len(f) < 3 {
		return 0, false
	}
	g, err := strconv.Atoi(f[2])
	return g, err == nil
}

func tasks(procRoot string, pid int) []int {
	ents, err := os.ReadDir(procRoot + "/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return []int{pid}
	}
	out := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out
}

// taskWait says whether one task waits for the terminal, from its syscall
// file ("running", or the number and six arguments in hex).
func taskWait(procRoot string, pid, tid int, slave string) (Wait, string) {
	dir := procRoot + "/" + strconv.Itoa(pid)
	b, err := os.ReadFile(dir + "/task/" + strconv.Itoa(tid) + "/syscall")
	if err != nil {
		return wchanWait(dir, tid)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return Unknown, "syscall: empty"
	}
	if f[0] == "running" {
		return Working, "running"
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil || nr < 0 { // -1: blocked outside a system call
		return Working, "not in a system call"
	}
	name, kind := callKind(nr)
	switch kind {
	case readCall:
		if len(f) < 2 {
			return Unknown, name
		}
		fd, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 31)
		if err != nil {
			return Unknown, name
		}
		if isSlave(dir, int(fd), slave) {
			return Reading, fmt.Sprintf("%s fd %d (the terminal)", name, fd)
		}
		return Working, fmt.Sprintf("%s fd %d", name, fd)
	case pollCall:
		// Which fds a poll waits on is in the task's memory; standard
		// input being the terminal is what an interactive program has.
		if isSlave(dir, 0, slave) {
			return Reading, name + " with the terminal on fd 0"
		}
		return Working, name
	default:
		return Working, "syscall " + name
	}
}

// wchanWait is the fallback when the syscall file is closed to us: the
// kernel function the task sleeps in.
func wchanWait(dir string, tid int) (Wait, string) {
	b, err := os.ReadFile(dir + "/task/" + strconv.Itoa(tid) + "/wchan")
	w := strings.TrimSpace(string(b))
	switch {
	case err != nil || w == "" || w == "0":
		return Unknown, "syscall and wchan unreadable"
	case w == "n_tty_read":
		return Reading, "wchan " + w
	default:
		return Working, "wchan " + w
	}
}

func isSlave(dir string, fd int, slave string) bool {
	link, err := os.Readlink(dir + "/fd/" + strconv.Itoa(fd))
	return err == nil && link == slave
}

type callClass int

const (
	otherCall callClass = iota
	readCall
	pollCall
)

func callKind(nr int) (string, callClass) {
	if c, ok := calls[nr]; ok {
		return c.name, c.class
	}
	return strconv.Itoa(nr), otherCall
}

type callInfo struct {
	name  string
	class callClass
}

// calls holds the system calls a terminal reader waits in, on every Linux
// architecture; calls_linux_amd64.go adds the legacy ones amd64 still has.
var calls = map[int]callInfo{
	unix.SYS_READ:         {"read", readCall},
	unix.SYS_READV:        {"readv", readCall},
	unix.SYS_PREAD64:      {"pread64", readCall},
	unix.SYS_PPOLL:        {"ppoll", pollCall},
	unix.SYS_PSELECT6:     {"pselect6", pollCall},
	unix.SYS_EPOLL_PWAIT:  {"epoll_pwait", pollCall},
	unix.SYS_EPOLL_PWAIT2: {"epoll_pwait2", pollCall},
}
