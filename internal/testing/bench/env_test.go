//go:build linux

package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// benchEnv is a private sup world: its own runtime, state and config
// directories, so `sup ls` sees only the supervisors this run started.
type benchEnv struct {
	t    *testing.T
	sup  string
	dir  string
	rt   string // SUP_RUNTIME_DIR
	env  []string
	docs int
}

func newBenchEnv(t *testing.T, sup string) *benchEnv {
	rt, err := os.MkdirTemp("", "sup-bench-") // short: socket paths have a 108-byte limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	dir := t.TempDir()
	return &benchEnv{t: t, sup: sup, dir: dir, rt: rt, env: append(os.Environ(),
		"SUP_RUNTIME_DIR="+rt,
		"XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
	)}
}

// doc writes a fresh session document: one per supervisor, so each gets
// its own session.
func (e *benchEnv) doc() string {
	e.docs++
	p := filepath.Join(e.dir, fmt.Sprintf("s%03d.md", e.docs))
	if err := os.WriteFile(p, []byte("# bench session\n"), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// command is `sup ARGS...` in this world.
func (e *benchEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(e.sup, args...)
	cmd.Env = e.env
	cmd.Dir = e.dir
	return cmd
}

// supProc is one `sup start` run in the background, without tmux: its
// stdin is a pipe held open (sup treats EOF as the end of the pane's
// input) and its stdout is what the pane would show.
type supProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   io.ReadCloser
	done  chan struct{}
}

// start runs `sup start --profile shell DOC -- argv...`; the caller reads
// (or discards) p.out. It is stopped at cleanup.
func (e *benchEnv) start(argv ...string) *supProc { return e.startProfile("shell", argv...) }

// startProfile is start under another profile.
func (e *benchEnv) startProfile(profile string, argv ...string) *supProc {
	cmd := e.command(append([]string{"start", "--profile", profile, "--size", "120x40", e.doc(), "--"}, argv...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatalf("sup start: %v", err)
	}
	p := &supProc{cmd: cmd, stdin: stdin, out: out, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }() // Best effort: the exit status says nothing here.
	e.t.Cleanup(p.stop)
	return p
}

// discard drains the supervisor's output in the background.
func (p *supProc) discard() { go io.Copy(io.Discard, p.out) }

func (p *supProc) pid() int { return p.cmd.Process.Pid }

// stop ends the supervisor (SIGTERM: it stops its child first), then
// SIGKILL if it lingers.
func (p *supProc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM) // Best effort: it may be gone.
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill() // Best effort.
		<-p.done
	}
	p.stdin.Close() // Best effort.
}

// waitSockets waits until n sockets are in the runtime directory.
func (e *benchEnv) waitSockets(n int) { e.waitNewSockets(nil, n) }

// waitNewSockets waits until n sockets not in before are in the runtime
// directory: sockets left by an earlier section's supervisors (one killed
// after its stop grace leaves its socket; the next `sup start` sweeps it)
// must not count for, or against, the new ones.
func (e *benchEnv) waitNewSockets(before []string, n int) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		socks, _ := filepath.Glob(filepath.Join(e.rt, "*.sock"))
		fresh := 0
		for _, s := range socks {
			if !slices.Contains(before, s) {
				fresh++
			}
		}
		if fresh >= n {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d of %d supervisors' sockets after 60s", fresh, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
