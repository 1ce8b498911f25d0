//go:build linux

package broker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/ipc"
)

// Host is a machine the broker spans, reached over OpenSSH (plan's
// hosts: entries).
type Host struct {
	Name string // the host column; host:TARGET
	SSH  string // ssh's destination
	Sup  string // sup's path there
}

// SSH is how the broker runs ssh: the program and the directory of its
// own ControlMaster sockets. Everything else comes from the user's
// ~/.ssh/config.
type SSH struct {
	Program    string // "ssh" when empty
	ControlDir string // 0700, under the local runtime dir (ControlDirOf)
	// Options are added before the destination; tests use them for their
	// own key and known_hosts (-i, -o UserKnownHostsFile=…), users put
	// theirs in ~/.ssh/config.
	Options []string
}

// ControlDirOf is the directory of sup's ssh ControlMaster sockets under
// runtimeDir.
func ControlDirOf(runtimeDir string) string { return paths.SSHControlDir(runtimeDir) }

// Host status words of a host that did not answer (HostError.Status).
const (
	HostUnreachable     = "unreachable"
	HostAuthFailed      = "auth failed"
	HostVersionMismatch = "version mismatch"
	HostSupMissing      = "sup missing"
	HostFailed          = "failed"
)

// HostError is why a host did not answer: Status is one of the Host*
// words, Reason ssh's or the relay's own words.
type HostError struct {
	Host   string
	Status string
	Reason string
}

func (e *HostError) Error() string { return fmt.Sprintf("host %s: %s: %s", e.Host, e.Status, e.Reason) }

// args is ssh's command line for running remote on h. sup adds only what
// it needs: no prompts (BatchMode), its own multiplexed connection (one
// ControlMaster per host, kept 10 minutes so the next verb finds it warm),
// a connect timeout and keepalives that notice a dead peer.
func (s SSH) args(h Host, tty bool, remote string) []string {
	a := []string{
		"-o", "BatchMode=yes",
		"-o", "ControlMaster=auto",
		"-o", "ControlPath=" + s.ControlPath(h),
		"-o", "ControlPersist=10m",
		"-o", "ConnectTimeout=5",
		"-o", "ServerAliveInterval=15",
		"-o", "ServerAliveCountMax=2",
	}
	if tty {
		a = append(a, "-t")
	} else {
		a = append(a, "-T")
	}
	a = append(a, s.Options...)
	return append(a, "--", h.SSH, remote)
}

// ControlPath is h's ControlMaster socket: sup's host name and ssh's hash
// of the destination (%C), so two host entries that resolve to one
// server and user (with other keys, say) never share a connection, and
// a changed destination never reuses the old one.
func (s SSH) ControlPath(h Host) string { return filepath.Join(s.ControlDir, h.Name+"-%C") }

func (s SSH) program() string {
	if s.Program == "" {
		return "ssh"
	}
	return s.Program
}

// SSHCommand is ssh running remote on h with a terminal: the command a
// tmux window runs to show a remote pane.
func (s SSH) SSHCommand(h Host, remote ...string) []string { return s.Argv(h, true, remote...) }

// Argv is ssh's argv running the words remote on h (each quoted for the
// remote shell), with a terminal (ssh -t) or without (-T).
func (s SSH) Argv(h Host, tty bool, remote ...string) []string {
	q := make([]string, len(remote))
	for i, w := range remote {
		q[i] = shellquote.QuoteHome(w)
	}
	return append([]string{s.program()}, s.args(h, tty, strings.Join(q, " "))...)
}

// HostConn is a running `ssh HOST sup relay …`: its stdio is the
// Client's connection.
type HostConn struct {
	Host   Host
	Client *ipc.Client
	cmd    *exec.Cmd
	stderr *os.File
	done   chan struct{}
	err    error // ssh's exit, valid after done
}

// DialHost runs sup's relay on h through ssh (`sup relay`, or with
// session set `sup relay --session ID`: a byte pipe to that supervisor)
// and returns the v1 client on its stdio. The ssh process ends with ctx.
func (s SSH) DialHost(ctx context.Context, h Host, session string) (*HostConn, error) {
	if err := os.MkdirAll(s.ControlDir, 0o700); err != nil {
		return nil, fmt.Errorf("ssh control dir: %w", err)
	}
	os.Chmod(s.ControlDir, 0o700) // Best effort: MkdirAll keeps an existing dir's mode.
	remote := shellquote.QuoteHome(h.Sup) + " relay"
	if session != "" {
		remote += " --session " + shellquote.Quote(session)
	}
	ours, theirsFile, err := socketPair()
	if err != nil {
		return nil, err
	}
	defer theirsFile.Close() // ssh has its own copy once started
	// stderr goes to a file, not a pipe: with ControlPersist the master
	// ssh forks off and would keep a pipe open for ten minutes.
	errf, err := os.CreateTemp("", "sup-ssh-*.err")
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("ssh stderr: %w", err)
	}
	os.Remove(errf.Name()) // Best effort: only we read it, through errf.
	cmd := exec.Command(s.program(), s.args(h, false, remote)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirsFile, theirsFile, errf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		ours.Close()
		errf.Close()
		return nil, &HostError{Host: h.Name, Status: HostFailed, Reason: err.Error()}
	}
	hc := &HostConn{Host: h, Client: ipc.NewClient(ours), cmd: cmd, stderr: errf, done: make(chan struct{})}
	go func() {
		hc.err = cmd.Wait()
		close(hc.done)
	}()
	stop := context.AfterFunc(ctx, hc.kill)
	go func() {
		<-hc.done
		stop()
	}()
	return hc, nil
}

// kill ends the ssh client (never the shared master: it is another
// process).
func (hc *HostConn) kill() {
	if hc.cmd.Process != nil {
		hc.cmd.Process.Kill() // Best effort: it may have exited.
	}
	hc.Client.Close()
}

// Close hangs up: the relay sees its stdin close and exits, and so does
// ssh; one that lingers is killed.
func (hc *HostConn) Close() {
	hc.Client.Close()
	select {
	case <-hc.done:
	case <-time.After(2 * time.Second):
		hc.kill()
		<-hc.done
	}
	hc.stderr.Close()
}

// Explain turns a failure on this connection into a HostError, from
// ssh's exit status and stderr when ssh has ended (it waits briefly).
func (hc *HostConn) Explain(err error) error {
	var he *HostError
	if errors.As(err, &he) {
		return err
	}
	if e := ipc.AsError(err); e != nil && e.Code != ipc.CodeInternal {
		return err // the relay or the supervisor answered: not a host failure
	}
	select {
	case <-hc.done:
	case <-time.After(300 * time.Millisecond):
		return &HostError{Host: hc.Host.Name, Status: HostUnreachable, Reason: fmt.Sprintf("no answer: %v", err)}
	}
	return classify(hc.Host.Name, hc.err, hc.stderrText(), err)
}

func (hc *HostConn) stderrText() string {
	b, _ := io.ReadAll(io.NewSectionReader(hc.stderr, 0, 64<<10)) // Best effort: only for the message.
	return strings.TrimSpace(string(b))
}

// classify names why ssh or the remote sup failed: ssh's own failures exit
// 255 (authentication or the network), a missing sup 127 (the shell), an
// older sup without a relay its usage error.
func classify(host string, exit error, stderr string, ioErr error) *HostError {
	reason := safetext.Field(lastLine(stderr)) // the other host's words
	if reason == "" {
		reason = fmt.Sprint(ioErr)
	}
	var ee *exec.ExitError
	code := -1
	if errors.As(exit, &ee) {
		code = ee.ExitCode()
	} else if exit == nil {
		code = 0
	}
	status := HostFailed
	switch {
	case code == 255 && (strings.Contains(stderr, "Permission denied") || strings.Contains(stderr, "Too many authentication failures") ||
		strings.Contains(stderr, "Host key verification failed")):
		status = HostAuthFailed
	case code == 255 || code == -1:
		status = HostUnreachable
	case code == 127:
		status = HostSupMissing
	case code != 0:
		status = HostVersionMismatch
		reason = "the host's sup has no relay (older than this one?): " + reason
	}
	return &HostError{Host: host, Status: status, Reason: reason}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return s
}

// checkRelay asks the relay's hello and refuses one without the methods
// this broker needs: an older sup on the host.
func checkRelay(ctx context.Context, hc *HostConn, need ...string) (ipc.HelloResult, error) {
	var hello ipc.HelloResult
	if err := hc.Client.Call(ctx, ipc.MethodHello, ipc.HelloParams{Client: "sup-broker"}, &hello); err != nil {
		return hello, hc.Explain(err)
	}
	have := map[string]bool{}
	for _, m := range hello.Methods {
		have[m] = true
	}
	for _, m := range need {
		if !have[m] {
			return hello, &HostError{Host: hc.Host.Name, Status: HostVersionMismatch,
				Reason: fmt.Sprintf("its sup %s has no %s (upgrade it to %s's)", hello.Server, m, "this sup")}
		}
	}
	return hello, nil
}
