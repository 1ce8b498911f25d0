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
	pgrp, sid, ptn, err := ptyFacts(master)
	if err != nil {
		return Facts{}, err
	}
	g := group{procRoot: procRoot, slave: "/dev/pts/" + strconv.Itoa(ptn),
		unknown: Facts{Pgrp: pgrp, Wait: Unknown, Call: "no task in the group"}}
	// The leader first: usually the group is one process, and a leader
	// that reads settles it without looking for other members.
	if pg, ok := statPgrp(procRoot, pgrp); ok && pg == pgrp {
		if f, ok := g.look(pgrp); ok {
			return f, nil
		}
	}
	for _, pid := range otherMembers(procRoot, sid, pgrp) {
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

// ptyFacts asks the master for its slave's foreground group, session and
// number: three ioctls, no file opened.
func ptyFacts(master *os.File) (pgrp, sid, ptn int, err error) {
	err = proc.FDControl(master, func(fd int) error {
		if pgrp, err = rawIoctlInt(fd, unix.TIOCGPGRP); err != nil {
			return fmt.Errorf("TIOCGPGRP: %w", err)
		}
		if ptn, err = rawIoctlInt(fd, unix.TIOCGPTN); err != nil {
			return fmt.Errorf("TIOCGPTN: %w", err)
		}
		if sid, err = rawIoctlInt(fd, unix.TIOCGSID); err != nil {
			return fmt.Errorf("TIOCGSID: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("foreground: %w", err)
	}
	return pgrp, sid, ptn, nil
}

// maxSessionWalk bounds the processes otherMembers visits: a session with
// more is read from the first ones found.
const maxSessionWalk = 512

// otherMembers lists the processes of group pgrp other than its leader.
// It never lists /proc (O(every process on the host) per look): a
// foreground group belongs to the terminal's session, so its members are
// the session leader sid or its descendants, found through
// /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN). The cost is one
// children file per task and one stat per process of this session. A
// kernel without children files yields no other member: the leader
// decides alone.
func otherMembers(procRoot string, sid, pgrp int) []int {
	var out []int
	if sid <= 0 {
		return out
	}
	queue := []int{sid}
	seen := map[int]bool{sid: true}
	for len(queue) > 0 && len(seen) <= maxSessionWalk {
		pid := queue[0]
		queue = queue[1:]
		if pid != pgrp {
			if g, ok := statPgrp(procRoot, pid); ok && g == pgrp {
				out = append(out, pid)
			}
		}
		for _, kid := range children(procRoot, pid) {
			if !seen[kid] {
				seen[kid] = true
				queue = append(queue, kid)
			}
		}
	}
	return out
}

// children lists the children of every task of pid.
func children(procRoot string, pid int) []int {
	var out []int
	dir := procRoot + "/" + strconv.Itoa(pid) + "/task/"
	for _, tid := range tasks(procRoot, pid) {
		b, err := readProc(dir + strconv.Itoa(tid) + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if kid, err := strconv.Atoi(f); err == nil {
				out = append(out, kid)
			}
		}
	}
	return out
}

// statPgrp reads the process group from /proc/PID/stat: the fifth field,
// counted after the command name's closing parenthesis (a name may hold
// spaces and parentheses).
func statPgrp(procRoot string, pid int) (int, bool) {
	b, err := readProc(procRoot + "/" + strconv.Itoa(pid) + "/stat")
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
	names, err := readDirNames(procRoot + "/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return []int{pid}
	}
	out := make([]int, 0, len(names))
	for _, name := range names {
		if tid, err := strconv.Atoi(name); err == nil {
			out = append(out, tid)
		}
	}
	return out
}

// taskWait says whether one task waits for the terminal, from its syscall
// file ("running", or the number and six arguments in hex).
func taskWait(procRoot string, pid, tid int, slave string) (Wait, string) {
	dir := procRoot + "/" + strconv.Itoa(pid)
	b, err := readProc(dir + "/task/" + strconv.Itoa(tid) + "/syscall")
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
	b, err := readProc(dir + "/task/" + strconv.Itoa(tid) + "/wchan")
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
	link, err := readLink(dir + "/fd/" + strconv.Itoa(fd))
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
