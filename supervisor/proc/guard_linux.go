package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// guardEnv marks a re-executed sup as a supervisor's guard; its value is the
// session id. An environment variable, not a verb: the guard is no part of
// the CLI.
const guardEnv = "SUP_GUARD_SESSION"

// guardLeaderEnv carries the current run's leader from the shell guard to
// the sup it execs to sweep ("0": no run was current).
const guardLeaderEnv = "SUP_GUARD_LEADER"

// Guard is the helper process that ends the agent's processes when sup
// itself is SIGKILLed and can run no code (specs/reliability.md). It holds
// the read end of a pipe whose only write end is sup's: EOF means sup is
// gone.
type Guard struct {
	w   *os.File
	pid int
	log *slog.Logger
}

// guardScript is the guard while sup lives: a POSIX shell blocked in a
// read of the pipe (fd 3), keeping the current run's leader. Only when the
// pipe ends without "done" (sup gone, however) does it exec sup — through
// fd 4, the binary sup was started from, so an upgrade or a deleted binary
// cannot stop the sweep — with SUP_GUARD_LEADER set, to sweep
// (RunGuardIfAsked). A shell, not sup itself: a second Go runtime starting
// beside sup's own start-up cost ~40 ms of CPU on the critical path of
// every `sup start` and then ~3 MB of private memory and the runtime's
// periodic work for the supervisor's whole life (specs/performance.md,
// "Start-up and the guard"). "done" with no run current is a normal exit:
// nothing to sweep. IFS is set: a shell may take it from the environment.
const guardScript = `trap '' HUP INT TERM QUIT PIPE
IFS=' '
c=0
while read -r w p; do
case $w in
run) c=$p ;;
end) [ "$p" = "$c" ] && c=0 ;;
"done") [ "$c" = 0 ] && exit 0 ;;
esac
done <&3
exec 3<&-
SUP_GUARD_LEADER=$c
export SUP_GUARD_LEADER
exec /proc/self/fd/4
`

// guardShell is the shell the guard runs in; a var so a test can make it
// missing.
var guardShell = "/bin/sh"

// StartGuard starts the guard for a session. It stays in sup's session (so
// the family code never takes it for the agent's), in a process group of
// its own, and ignores the signals that end a pane, so it outlives sup long
// enough to clean up. Without a shell it is sup itself re-executed.
func StartGuard(sessionID string, log *slog.Logger) (*Guard, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(self)
	env := append(os.Environ(), guardEnv+"="+sessionID)
	if _, err := os.Stat(guardShell); err == nil {
		exe, err := os.Open(self)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("guard: %w", err)
		}
		defer exe.Close()
		cmd = exec.Command(guardShell, "-c", guardScript)
		cmd.ExtraFiles = []*os.File{r, exe} // fds 3 and 4
		// Nothing of sup's environment: a shell reads too much of it. Where
		// /bin/sh is bash (Fedora, Arch), SHELLOPTS=noexec ended the guard
		// at once and an exported BASH_FUNC_read%% replaced its read, so
		// nothing was swept (the attack trial); dash reads ENV, bash
		// BASH_ENV. The sweep it execs needs only the session id (and
		// GORACE keeps a race-built test binary from sleeping at exit).
		env = []string{guardEnv + "=" + sessionID}
		if v, ok := os.LookupEnv("GORACE"); ok {
			env = append(env, "GORACE="+v)
		}
	} else {
		cmd.ExtraFiles = []*os.File{r} // fd 3
	}
	cmd.Env = env
	// Its own process group: the hangup of a closing pane goes to the
	// foreground group, and could come before the guard (still starting)
	// has ignored SIGHUP.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("guard: %w", err)
	}
	go func() {
		err := cmd.Wait()
		log.Info("guard_exited", "pid", cmd.Process.Pid, "err", err)
	}()
	log.Info("guard_started", "pid", cmd.Process.Pid)
	return &Guard{w: w, pid: cmd.Process.Pid, log: log}, nil
}

// Run tells the guard which run is current. A nil guard ignores it.
func (g *Guard) Run(pid int) { g.send("run", pid) }

// End tells the guard that run pid is over. A nil guard ignores it.
func (g *Guard) End(pid int) { g.send("end", pid) }

func (g *Guard) send(what string, pid int) {
	if g == nil {
		return
	}
	if _, err := fmt.Fprintf(g.w, "%s %d\n", what, pid); err != nil {
		g.log.Warn("guard_unreachable", "err", err)
	}
}

// Close lets the guard go: sup is exiting normally, its runs are over, so
// "done" first — the guard exits without a sweep (which lists every
// process on the host). A run still current at "done" is swept anyway.
func (g *Guard) Close() {
	if g != nil {
		fmt.Fprintf(g.w, "done 0\n") // Best effort: without it the guard sweeps, finding nothing.
		g.w.Close()                  // Best effort.
	}
}

// RunGuardIfAsked turns this process into a supervisor's guard when sup
// started it as one, and never returns then. main calls it first. With
// SUP_GUARD_LEADER set, the shell guard (guardScript) saw sup go and exec'd
// this binary to sweep; without, this process is the guard itself (no
// shell) and reads the pipe first.
func RunGuardIfAsked() {
	id := os.Getenv(guardEnv)
	if id == "" {
		return
	}
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGPIPE)
	if leader, ok := os.LookupEnv(guardLeaderEnv); ok {
		n, _ := strconv.Atoi(leader)
		sweepOrphaned(id, n)
		os.Exit(0)
	}
	current := 0
	sc := bufio.NewScanner(os.NewFile(3, "guard-pipe"))
	for sc.Scan() {
		what, n, _ := strings.Cut(sc.Text(), " ")
		pid, _ := strconv.Atoi(n)
		switch {
		case what == "run":
			current = pid
		case what == "end" && pid == current:
			current = 0
		case what == "done" && current == 0:
			os.Exit(0)
		}
	}
	sweepOrphaned(id, current)
	os.Exit(0)
}

// sweepOrphaned SIGKILLs what is left of session id's agent after its
// supervisor died: the members of the current run's session (leader
// included: its Pdeathsig may have raced), and any process carrying
// SUP_SESSION=id in its environment (daemons that left the session and
// were reparented away from sup when it died). It repeats until a scan
// finds nothing, since a dying parent may still fork.
func sweepOrphaned(id string, leader int) {
	marker := []byte("SUP_SESSION=" + id + "\x00")
	self := os.Getpid()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		found := 0
		for _, p := range procTable() {
			if p.pid == self || p.zombie {
				continue
			}
			if leader > 0 && p.sid == leader || hasEnv(p.pid, marker) {
				syscall.Kill(p.pid, syscall.SIGKILL) // Best effort: it may have just exited.
				found++
			}
		}
		if found == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hasEnv reports whether pid's initial environment holds the entry marker
// (NAME=value followed by NUL).
func hasEnv(pid int, marker []byte) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return bytes.HasPrefix(env, marker) || bytes.Contains(env, append([]byte{0}, marker...))
}
