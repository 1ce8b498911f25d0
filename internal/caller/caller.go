package caller

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Kind is the verdict's kind.
type Kind string

const (
	// Operator is a process outside every supervised agent of this host.
	Operator Kind = "operator"
	// Agent is a process inside a supervised agent's tree.
	Agent Kind = "agent"
)

// Proc is what the walk reads of one process (/proc/PID/stat, and the
// owner of /proc/PID).
type Proc struct {
	PID, PPID, SID int
	// Start is the start time in clock ticks since boot: a parent never
	// starts after its child, so a parent that did is a reused pid.
	Start  uint64
	Comm   string
	Zombie bool // exited, not yet reaped (state Z or X)
}

// ErrGone is returned by a Table for a process that does not exist (any
// more).
var ErrGone = errors.New("no such process")

// Table is the process table (Proc reads /proc; tests use a map).
type Table interface {
	Stat(pid int) (Proc, error)
	// Owner is the uid owning /proc/PID: the process's uid, or 0 for a
	// process that is not dumpable (execve of a binary the process cannot
	// read makes it so: a sup installed mode 0711; Decide takes such a
	// root-owned ancestor named sup for a supervisor). Read only where
	// the walk crosses a session.
	Owner(pid int) (int, error)
	// Exe is the executable's path, " (deleted)" removed.
	Exe(pid int) (string, error)
}

// Config is what Decide needs to know about the decider.
type Config struct {
	// UID is the operator's uid: the caller's, since the socket admits
	// no other.
	UID int
	// Self is the deciding supervisor's pid; 0 when the decider is no
	// supervisor (sup whoami).
	Self int
	// SelfExe is the decider's executable (Table.Exe of itself).
	SelfExe string
}

// MaxDepth bounds the walk: a deeper chain is refused, not guessed.
const MaxDepth = 512

// Link is one process of the chain that decided.
type Link struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm"`
	// Encloses: this process is a supervisor (or sup's headless run)
	// and the link below it is its agent.
	Encloses bool `json:"encloses,omitempty"`
}

// Verdict is who the caller is.
type Verdict struct {
	Kind Kind
	PID  int
	Exe  string
	// Supervisors are the pids of the enclosing sup processes, innermost
	// first, with their start times (to tell a reused pid); empty for the
	// operator. Supervisors[0] is the agent's own session's.
	Supervisors []Supervisor
	// Chain is the caller and its ancestors, caller first.
	Chain []Link
}

// Supervisor is one enclosing sup process.
type Supervisor struct {
	PID   int
	Start uint64
	// Child is the chain's process just below it: the agent, or an
	// orphan it adopted.
	Child int
}

// Decide walks from pid to the root of the process table and says who
// pid is (the package's invariants).
func Decide(t Table, pid int, cfg Config) (Verdict, error) {
	v := Verdict{Kind: Operator, PID: pid}
	if pid <= 0 {
		// SO_PEERCRED gives 0 for a peer in a pid namespace we cannot see.
		v.Kind = Agent
		return v, nil
	}
	cur, err := t.Stat(pid)
	if err == nil && cur.Zombie {
		err = ErrGone
	}
	if err != nil {
		return v, fmt.Errorf("caller %d: %w", pid, err)
	}
	if exe, err := t.Exe(pid); err == nil {
		v.Exe = exe
	}
	v.Chain = append(v.Chain, Link{PID: cur.PID, Comm: cur.Comm})
	seen := map[int]bool{pid: true}
	for cur.PPID > 0 {
		if len(v.Chain) >= MaxDepth {
			return v, fmt.Errorf("caller %d: ancestry deeper than %d processes", pid, MaxDepth)
		}
		if seen[cur.PPID] {
			return v, fmt.Errorf("caller %d: ancestry loops at pid %d (the table changed while it was read)", pid, cur.PPID)
		}
		seen[cur.PPID] = true
		up, err := t.Stat(cur.PPID)
		if err != nil {
			return v, fmt.Errorf("caller %d: ancestor %d: %w", pid, cur.PPID, err)
		}
		if up.Start > cur.Start {
			return v, fmt.Errorf("caller %d: ancestor %d started after its child %d (its pid was reused while the chain was read)", pid, up.PID, cur.PID)
		}
		link := Link{PID: up.PID, Comm: up.Comm}
		// Init (pid 1) encloses only as the decider itself: it adopts
		// every orphan on the host, and on some hosts its exe cannot be
		// read, which would otherwise fail closed for everyone.
		if up.SID != cur.SID && (up.PID != 1 || cfg.Self == 1) {
			sup := up.PID == cfg.Self
			if !sup {
				uid, err := t.Owner(up.PID)
				if err != nil {
					return v, fmt.Errorf("caller %d: ancestor %d: %w", pid, up.PID, err)
				}
				switch {
				case uid == cfg.UID:
					exe, err := t.Exe(up.PID)
					switch {
					case errors.Is(err, ErrGone):
						return v, fmt.Errorf("caller %d: ancestor %d: %w", pid, up.PID, err)
					case err != nil:
						// Our uid, and its exe unreadable: the process is
						// not dumpable (a setuid program's child after it
						// dropped privileges, such as sshd's session
						// process, which some kernels leave owned by the
						// user). Its comm, which execve set and no other
						// process can change, says whether it is sup.
						sup = CommIsSup(up.Comm, cfg.SelfExe)
					default:
						sup = IsSup(exe, cfg.SelfExe)
					}
				case uid == 0:
					// A stock kernel shows a process that is not dumpable
					// as root's: a sup started from a binary the user
					// cannot read (mode 0711) would hide here, so its
					// comm decides (a root process named sup above a
					// session leader encloses: fail closed).
					sup = CommIsSup(up.Comm, cfg.SelfExe)
				}
				if !sup && uid != cfg.UID {
					v.Chain = append(v.Chain, link)
					cur = up
					continue // another user's process: not one of our supervisors
				}
			}
			if sup {
				link.Encloses = true
				v.Kind = Agent
				v.Supervisors = append(v.Supervisors, Supervisor{PID: up.PID, Start: up.Start, Child: cur.PID})
			}
		}
		v.Chain = append(v.Chain, link)
		cur = up
	}
	return v, nil
}

// IsSup reports whether exe is a sup binary: the decider's own, or one
// whose file is named sup (an older or newer install).
func IsSup(exe, selfExe string) bool {
	exe = strings.TrimSuffix(exe, " (deleted)")
	return exe != "" && (exe == strings.TrimSuffix(selfExe, " (deleted)") || filepath.Base(exe) == "sup")
}

// CommIsSup reports whether comm (a process's name, /proc/PID/stat's
// second field: the executable's base name cut to 15 bytes by execve) is
// sup's: "sup", or the decider's own executable's name.
func CommIsSup(comm, selfExe string) bool {
	if comm == "" {
		return false
	}
	return comm == "sup" || comm == commOf(strings.TrimSuffix(selfExe, " (deleted)"))
}

// commOf is the comm execve gives a program at path: its base name, at
// most TASK_COMM_LEN-1 (15) bytes.
func commOf(path string) string {
	if path == "" {
		return ""
	}
	b := filepath.Base(path)
	if len(b) > 15 {
		b = b[:15]
	}
	return b
}

// String is the chain as whoami prints it: caller first, enclosing
// supervisors marked.
func (v Verdict) String() string {
	var b strings.Builder
	for i, l := range v.Chain {
		if i > 0 {
			b.WriteString(" < ")
		}
		fmt.Fprintf(&b, "%s[%d]", l.Comm, l.PID)
		if l.Encloses {
			b.WriteString("(supervisor)")
		}
	}
	return b.String()
}
