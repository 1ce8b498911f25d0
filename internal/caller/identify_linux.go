package caller

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// Identifier names the sessions that enclose a caller, for display and
// for the trigger policy. It never changes a verdict: an agent whose
// session cannot be named is "an agent of an unidentified session".
//
// A supervisor is named by asking its own socket: a socket in the runtime
// dir whose server the kernel says is that supervisor's pid (the agent's
// SUP_SOCKET is tried first, as a hint; then every socket). A socket an
// agent planted, or a file it renamed, is served by another pid and is
// never believed.
type Identifier struct {
	RuntimeDir string
	// Self is the deciding supervisor's pid and Own its session, named
	// without asking.
	Self int
	Own  ipc.CallerSession

	mu sync.Mutex
	// known is kept for the supervisor's life, which is sound because a
	// session's name, id and workspace are fixed when `sup start` resolves
	// them: no restart or respawn changes them (supervisor/spawn.go;
	// specs/security.md, "Fixed at start"). A pid reused by a new
	// supervisor has another start time, so another key.
	known  map[Supervisor]ipc.CallerSession // by pid and start time
	failed map[Supervisor]time.Time         // when naming it last failed
}

// RetryAfter is how long a supervisor that could not be named is not
// asked again: an agent that removed its session's socket must not make
// every call it makes dial every socket.
const RetryAfter = 10 * time.Second

// DialTimeout bounds each dial and call made to name a session.
const DialTimeout = 300 * time.Millisecond

// Caller is v as the protocol carries it, its sessions named.
func (id *Identifier) Caller(v Verdict) ipc.Caller {
	c := ipc.Caller{Kind: string(v.Kind), PID: v.PID, Exe: v.Exe, Chain: v.String()}
	if v.Kind != Agent {
		return c
	}
	for _, s := range v.Supervisors {
		c.Enclosing = append(c.Enclosing, id.session(s))
	}
	if len(c.Enclosing) > 0 {
		own := c.Enclosing[0]
		c.Session = &own
	}
	return c
}

func (id *Identifier) session(s Supervisor) ipc.CallerSession {
	if s.PID == id.Self && id.Self != 0 {
		return id.Own
	}
	key := Supervisor{PID: s.PID, Start: s.Start}
	id.mu.Lock()
	cs, ok := id.known[key]
	failedAt, failed := id.failed[key]
	id.mu.Unlock()
	if ok {
		return cs
	}
	cs = ipc.CallerSession{SupPID: s.PID}
	if failed && time.Since(failedAt) < RetryAfter {
		return cs
	}
	var paths []string
	if hint := envOf(s.Child, "SUP_SOCKET"); hint != "" {
		paths = append(paths, hint)
	}
	if id.RuntimeDir != "" {
		all, _ := filepath.Glob(filepath.Join(id.RuntimeDir, "*.sock"))
		paths = append(paths, all...)
	}
	for _, p := range paths {
		if st, ok := askState(p, s.PID); ok {
			cs.Name, cs.ID, cs.Workspace = st.Name, st.SessionID, st.Workspace
			id.mu.Lock()
			if id.known == nil {
				id.known = map[Supervisor]ipc.CallerSession{}
			}
			id.known[key] = cs
			id.mu.Unlock()
			return cs
		}
	}
	id.mu.Lock()
	if id.failed == nil {
		id.failed = map[Supervisor]time.Time{}
	}
	id.failed[key] = time.Now()
	id.mu.Unlock()
	return cs
}

// askState asks the socket at path for its state, if the kernel says pid
// serves it.
func askState(path string, pid int) (ipc.State, bool) {
	c, err := ipc.Dial(path, DialTimeout)
	if err != nil {
		return ipc.State{}, false
	}
	defer c.Close()
	if got, err := c.ServerPID(); err != nil || got != pid {
		return ipc.State{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), DialTimeout)
	defer cancel()
	var st ipc.State
	if err := c.Call(ctx, ipc.MethodState, nil, &st); err != nil {
		return ipc.State{}, false
	}
	return st, true
}

// envOf reads one variable of pid's initial environment ("" if none).
func envOf(pid int, name string) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k == name {
			return v
		}
	}
	return ""
}

// Self is what a supervisor decides for this process (and for any sup
// verb run from the same shell): `sup whoami` and `sup doctor`. The
// sessions are named by asking their sockets in runtimeDir.
func Self(runtimeDir string) (ipc.Caller, error) {
	v, err := Decide(ProcFS{}, os.Getpid(), SelfConfig(0))
	if err != nil {
		return ipc.Caller{}, err
	}
	return (&Identifier{RuntimeDir: runtimeDir}).Caller(v), nil
}

// Classifier is a supervisor's ServerConfig.Classify: it decides each
// connection's caller from the kernel's peer credentials (Decide, this
// process the supervisor of own's agent) and, when the kernel gave a
// pidfd, checks that the process it named still runs after the walk, so
// the walk read that process and not a successor given its pid.
func Classifier(runtimeDir string, own ipc.CallerSession) func(ipc.Peer) (ipc.Caller, error) {
	self := os.Getpid()
	cfg := SelfConfig(self)
	id := &Identifier{RuntimeDir: runtimeDir, Self: self, Own: own}
	return func(p ipc.Peer) (ipc.Caller, error) {
		v, err := Decide(ProcFS{}, p.PID, cfg)
		if alive, known := p.StillThere(); known && !alive {
			return ipc.Caller{}, fmt.Errorf("the calling process %d exited before its ancestry was read", p.PID)
		}
		if err != nil {
			return ipc.Caller{}, err
		}
		return id.Caller(v), nil
	}
}
