//go:build linux

package main

import (
	"context"

	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/plan"
	"github.com/sup-tmux/sup/supervisor/store"
	"github.com/urfave/cli/v3"
)

// hostDeadline bounds each remote host's whole answer (ssh connection,
// relay start, its supervisors' states): a host that is down or slow
// costs the listing this long at most, never the local part's answers.
const hostDeadline = 4 * time.Second

// hostFlag picks the hosts a fan-out verb spans (specs/broker.md "Hosts").
var hostFlag = &cli.StringFlag{Name: "host", Usage: "only this host (a name of hosts: in config.yaml, this host's short name), or all (default)"}

// configuredHosts are the hosts: of config.yaml.
func configuredHosts() ([]broker.Host, error) {
	cfg, err := plan.LoadConfig(store.ConfigDir(os.Getenv))
	if err != nil {
		return nil, err
	}
	hosts := make([]broker.Host, 0, len(cfg.Hosts))
	for _, h := range cfg.Hosts {
		if h.Name == broker.LocalHostName() {
			return nil, fmt.Errorf("hosts: %q is this host's own name; the local host is always there, remove its entry or rename it", h.Name)
		}
		hosts = append(hosts, broker.Host{Name: h.Name, SSH: h.SSH, Sup: h.Sup})
	}
	return hosts, nil
}

// sshOf is how this broker runs ssh: SUP_SSH_CONFIG names an ssh config
// file to use instead of ~/.ssh/config (ssh -F), for a separate identity
// or a test's private one. The ssh control sockets live in the runtime
// dir, so it is checked first.
func sshOf() (broker.SSH, error) {
	dir, err := runtimeDir()
	if err != nil {
		return broker.SSH{}, err
	}
	return sshAt(dir), nil
}

// sshAt is sshOf with the runtime dir already checked.
func sshAt(dir string) broker.SSH {
	s := broker.SSH{ControlDir: broker.ControlDirOf(dir)}
	if f := os.Getenv("SUP_SSH_CONFIG"); f != "" {
		s.Options = []string{"-F", f}
	}
	return s
}

// fanoutOf is the fan-out over hosts from this host's checked runtime dir.
func fanoutOf(hosts []broker.Host) (broker.Fanout, error) {
	dir, err := runtimeDir()
	if err != nil {
		return broker.Fanout{}, err
	}
	return broker.Fanout{RuntimeDir: dir, Hosts: hosts, SSH: sshAt(dir), Timeout: fanoutTimeout, Deadline: hostDeadline}, nil
}

// fanout is where a fan-out verb looks, per --host.
func fanout(cmd *cli.Command) (broker.Fanout, bool, error) {
	hosts, err := configuredHosts()
	if err != nil {
		return broker.Fanout{}, false, err
	}
	f, err := fanoutOf(nil)
	if err != nil {
		return broker.Fanout{}, false, err
	}
	broker.RemoveHostCachesExcept(f.RuntimeDir, hosts)
	var name string
	if cmd != nil {
		name = cmd.String("host")
	}
	remote, local, err := broker.SelectHosts(hosts, name)
	if err != nil {
		return broker.Fanout{}, false, err
	}
	f.Hosts = remote
	return f, local, nil
}

// discoverHosts asks every host --host selects, telling stderr about the
// hosts and sockets that did not answer.
func discoverHosts(ctx context.Context, cmd *cli.Command) ([]broker.HostResult, error) {
	f, local, err := fanout(cmd)
	if err != nil {
		return nil, err
	}
	if len(f.Hosts) == 0 {
		sessions, err := discoverAll(ctx, fanoutTimeout)
		if err != nil {
			return nil, err
		}
		return []broker.HostResult{{Host: broker.LocalHostName(), Local: true, Sessions: sessions}}, nil
	}
	results, err := localOK(f.DiscoverHosts(ctx, local))
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		if r.Err != nil {
			errf("sup: %v\n", r.Err)
		}
		for _, e := range r.Errors {
			errf("sup: %s did not answer: %v\n", e.Socket, e.Err)
		}
	}
	return results, nil
}

// localOK fails when the local host's part failed (its runtime dir): a
// remote host's failure is only its own column.
func localOK(results []broker.HostResult) ([]broker.HostResult, error) {
	for _, r := range results {
		if r.Local && r.Err != nil {
			return nil, r.Err
		}
	}
	return results, nil
}

// hostsQueue is the stuck queue of every host for a full-screen view (the
// picker), which cannot print to stderr: the hosts that did not answer
// come back as errors to show in its status line.
func hostsQueue(ctx context.Context) ([]broker.Entry, []error, error) {
	f, _, err := fanout(nil)
	if err != nil {
		return nil, nil, err
	}
	results, err := localOK(f.DiscoverHosts(ctx, true))
	if err != nil {
		return nil, nil, err
	}
	var failed []error
	for _, r := range results {
		if r.Err != nil {
			failed = append(failed, r.Err)
		}
	}
	return broker.Queue(broker.AllSessions(results), time.Now()), failed, nil
}

// spansHosts reports whether a listing covers other hosts (then it shows
// a host column).
func spansHosts(results []broker.HostResult) bool {
	return len(results) > 1 || len(results) == 1 && !results[0].Local
}

// hostOf is a session's host name for display: the local one's too.
func hostOf(s broker.Session) string {
	if s.Host == "" {
		return broker.LocalHostName()
	}
	return s.Host
}

// splitHostTarget takes "host:rest" apart when host names a configured
// host (or this one); anything else is a target of every host.
func splitHostTarget(target string, hosts []broker.Host) (host, rest string, ok bool) {
	h, rest, found := strings.Cut(target, ":")
	if !found {
		return "", target, false
	}
	if h == broker.LocalHostName() {
		return h, rest, true
	}
	for _, x := range hosts {
		if x.Name == h {
			return h, rest, true
		}
	}
	return "", target, false
}

// withRemoteTarget is withTarget when hosts are configured: TARGET may be
// host:TARGET; unqualified, it is looked up on every host, and a remote
// session is reached through its host's relay (`sup relay --session`).
func withRemoteTarget(ctx context.Context, cmd *cli.Command, hosts []broker.Host, fn func(*ipc.Client, broker.Session) error) error {
	target := cmd.Args().First()
	f, err := fanoutOf(hosts)
	if err != nil {
		return err
	}
	local := true
	if h, rest, ok := splitHostTarget(target, hosts); ok {
		target = rest
		f.Hosts, local, _ = broker.SelectHosts(hosts, h)
	}
	results := f.DiscoverHosts(ctx, local)
	wd, _ := os.Getwd() // Best effort: only document-path targets need it.
	s, err := broker.FindTarget(broker.AllSessions(results), target, wd)
	if err != nil {
		for _, r := range results {
			if r.Err != nil {
				err = fmt.Errorf("%w\n  (%v)", err, r.Err)
			}
		}
		return err
	}
	c, done, err := dialSession(ctx, s)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", s.State.Name, err)
	}
	defer done()
	return fn(c, s)
}

// originRequester names the origin host in a remote trigger's requester,
// so the audit line written on the delivering host says who asked from
// where.
func originRequester(requester string) string {
	if strings.Contains(requester, "@") {
		return requester
	}
	return requester + "@" + broker.LocalHostName()
}

// followAllHosts is `sup events --all` across the hosts --host selects:
// the local supervisors' events and each host's through its relay, one
// JSON line each naming the host.
func followAllHosts(ctx context.Context, cmd *cli.Command) error {
	f, local, err := fanout(cmd)
	if err != nil {
		return err
	}
	if len(f.Hosts) == 0 {
		return followAll(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu   sync.Mutex
		werr error
	)
	enc := safetext.NewEncoder(os.Stdout)
	emit := func(ev broker.SessionEvent) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Host == "" {
			ev.Host = broker.LocalHostName()
		}
		if err := enc.Encode(ev); err != nil && werr == nil {
			werr = err // stdout closed (| head): stop
			cancel()
		}
	}
	var wg sync.WaitGroup
	for _, h := range f.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.SSH.FollowHost(ctx, h, emit, func(err error) { errf("sup: %v\n", err) })
		}()
	}
	if local {
		err = broker.FollowAll(ctx, f.RuntimeDir, eventsRescan, emit)
		cancel()
	}
	wg.Wait()
	if werr != nil {
		return nil
	}
	return err
}

// jump moves the caller's client to s: its pane, on this host (Jump), or
// a local window attached over ssh to its pane on another (JumpRemote).
func jump(ctx context.Context, socket, client string, s broker.Session) (broker.Jumped, error) {
	if s.Host == "" {
		return broker.Jump(ctx, socket, client, s)
	}
	hosts, err := configuredHosts()
	if err != nil {
		return broker.Jumped{}, err
	}
	for _, h := range hosts {
		if h.Name == s.Host {
			ssh, err := sshOf()
			if err != nil {
				return broker.Jumped{}, err
			}
			return ssh.JumpRemote(ctx, socket, client, h, s)
		}
	}
	return broker.Jumped{}, fmt.Errorf("%s: host %s is no longer in hosts: of config.yaml", s.State.Name, s.Host)
}

// collectHostsMetrics is the metrics snapshot of this host and, with
// hosts: configured, of every host (sessions labelled host="…", a
// sup_host_up per host; a host that does not answer costs its deadline).
func collectHostsMetrics(ctx context.Context) (broker.Snapshot, error) {
	hosts, err := configuredHosts()
	if err != nil {
		return broker.Snapshot{}, err
	}
	f, err := fanoutOf(hosts)
	if err != nil {
		return broker.Snapshot{}, err
	}
	if len(hosts) == 0 {
		return broker.CollectMetrics(ctx, f.RuntimeDir, fanoutTimeout)
	}
	f.Metrics = true
	results := f.DiscoverHosts(ctx, true)
	if results[0].Err != nil {
		return broker.Snapshot{}, results[0].Err
	}
	for _, r := range results[1:] {
		if r.Err != nil {
			errf("sup: %v\n", r.Err)
		}
	}
	return broker.HostsSnapshot(results), nil
}

// dialSession connects to s's supervisor: its socket on this host, or
// through its host's relay (`sup relay --session`). done closes it.
func dialSession(ctx context.Context, s broker.Session) (*ipc.Client, func(), error) {
	if s.Host == "" {
		c, err := ipc.Dial(s.Socket, dialTimeout)
		if err != nil {
			return nil, nil, err
		}
		return c, func() { c.Close() }, nil
	}
	hosts, err := configuredHosts()
	if err != nil {
		return nil, nil, err
	}
	for _, h := range hosts {
		if h.Name == s.Host {
			ssh, err := sshOf()
			if err != nil {
				return nil, nil, err
			}
			hc, err := ssh.DialHost(ctx, h, s.State.SessionID)
			if err != nil {
				return nil, nil, err
			}
			return hc.Client, hc.Close, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: host %s is no longer in hosts: of config.yaml", s.State.Name, s.Host)
}

// findHostTarget is FindTarget over sessions of every host, taking
// host:TARGET apart first.
func findHostTarget(sessions []broker.Session, target, wd string) (broker.Session, error) {
	hosts, err := configuredHosts()
	if err != nil {
		return broker.Session{}, err
	}
	if h, rest, ok := splitHostTarget(target, hosts); ok {
		var on []broker.Session
		for _, s := range sessions {
			if hostOf(s) == h {
				on = append(on, s)
			}
		}
		return broker.FindTarget(on, rest, wd)
	}
	return broker.FindTarget(sessions, target, wd)
}
