//go:build linux

package broker

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/ipc"
)

// The fleet's default bounds (NewFleet).
const (
	// FanoutTimeout bounds each supervisor's answer when a verb asks them
	// all: one wedged supervisor must not stall the listing of the others.
	FanoutTimeout = time.Second
	// HostDeadline bounds each remote host's whole answer (ssh connection,
	// relay start, its supervisors' states): a host that is down or slow
	// costs the listing this long at most, never the local part's answers.
	HostDeadline = 4 * time.Second
	// DialTimeout bounds connecting to one supervisor: a wedged one must
	// not hang the user's shell.
	DialTimeout = 2 * time.Second
	// CallTimeout bounds one request of a client verb (Call).
	CallTimeout = 30 * time.Second
	// EventsRescan is how often `sup events --all` looks for new
	// supervisors.
	EventsRescan = 500 * time.Millisecond
)

// Fleet is every supervisor this user reaches: the local ones under the
// runtime dir and those of the hosts: of config.yaml, through their
// relays. A command builds it once (NewFleet) and finds, dials and calls
// sessions of any host through it, so config.yaml is read once per
// command and every verb spans hosts the same way.
type Fleet struct {
	RuntimeDir string // checked by ipc.CheckRuntimeDir
	Hosts      []Host // hosts: of config.yaml, in its order; never this host
	SSH        SSH
	Timeout    time.Duration // each supervisor's answer in a fan-out
	Deadline   time.Duration // each remote host's whole answer
}

// NewFleet reads config.yaml's hosts: and checks the runtime dir, in that
// order, from getenv's environment. SUP_SSH_CONFIG names an ssh config
// file to use instead of ~/.ssh/config (ssh -F), for a separate identity
// or a test's private one.
func NewFleet(getenv func(string) string) (*Fleet, error) {
	cfg, err := plan.LoadConfig(paths.ConfigDir(getenv))
	if err != nil {
		return nil, err
	}
	hosts := make([]Host, 0, len(cfg.Hosts))
	for _, h := range cfg.Hosts {
		if h.Name == LocalHostName() {
			return nil, fmt.Errorf("hosts: %q is this host's own name; the local host is always there, remove its entry or rename it", h.Name)
		}
		hosts = append(hosts, Host{Name: h.Name, SSH: h.SSH, Sup: h.Sup})
	}
	dir := paths.RuntimeDir(getenv)
	if err := ipc.CheckRuntimeDir(dir); err != nil {
		return nil, err
	}
	s := SSH{ControlDir: ControlDirOf(dir)}
	if f := getenv("SUP_SSH_CONFIG"); f != "" {
		s.Options = []string{"-F", f}
	}
	return &Fleet{RuntimeDir: dir, Hosts: hosts, SSH: s, Timeout: FanoutTimeout, Deadline: HostDeadline}, nil
}

// fanout is the fan-out over remote.
func (f *Fleet) fanout(remote []Host) Fanout {
	return Fanout{RuntimeDir: f.RuntimeDir, Hosts: remote, SSH: f.SSH, Timeout: f.Timeout, Deadline: f.Deadline}
}

// Select is where a fan-out verb looks, per --host name ("" or all:
// every host); local says whether this host is in it. The host caches of
// hosts no longer configured go.
func (f *Fleet) Select(name string) (Fanout, bool, error) {
	RemoveHostCachesExcept(f.RuntimeDir, f.Hosts)
	remote, local, err := SelectHosts(f.Hosts, name)
	if err != nil {
		return Fanout{}, false, err
	}
	return f.fanout(remote), local, nil
}

// Host is the configured host called name.
func (f *Fleet) Host(name string) (Host, bool) {
	for _, h := range f.Hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

// Discover asks every supervisor of the hosts --host name selects. The
// local part's failure (its runtime dir) is the error; a remote host's
// is its result's Err, and the sockets that did not answer its Errors.
func (f *Fleet) Discover(ctx context.Context, name string) ([]HostResult, error) {
	return f.discover(ctx, name, Discover)
}

// List is Discover for display (sup ls): this host's part is read from
// the state files (List); another host's is its relay's answer.
func (f *Fleet) List(ctx context.Context, name string) ([]HostResult, error) {
	return f.discover(ctx, name, List)
}

func (f *Fleet) discover(ctx context.Context, name string, local func(context.Context, string, time.Duration) (Result, error)) ([]HostResult, error) {
	fo, withLocal, err := f.Select(name)
	if err != nil {
		return nil, err
	}
	fo.local = local
	if len(fo.Hosts) == 0 {
		res, err := local(ctx, f.RuntimeDir, f.Timeout)
		if err != nil {
			return nil, err
		}
		return []HostResult{{Host: LocalHostName(), Local: true, Sessions: res.Sessions, Errors: res.Errors}}, nil
	}
	return localOK(fo.DiscoverHosts(ctx, withLocal))
}

// localOK fails when the local host's part failed (its runtime dir): a
// remote host's failure is only its own column.
func localOK(results []HostResult) ([]HostResult, error) {
	for _, r := range results {
		if r.Local && r.Err != nil {
			return nil, r.Err
		}
	}
	return results, nil
}

// Queue is the stuck queue of every host for a full-screen view (the
// picker), which cannot print to stderr: the hosts that did not answer
// come back as errors to show in its status line.
func (f *Fleet) Queue(ctx context.Context, now func() time.Time) ([]Entry, []error, error) {
	fo, _, err := f.Select("")
	if err != nil {
		return nil, nil, err
	}
	results, err := localOK(fo.DiscoverHosts(ctx, true))
	if err != nil {
		return nil, nil, err
	}
	var failed []error
	for _, r := range results {
		if r.Err != nil {
			failed = append(failed, r.Err)
		}
	}
	return Queue(AllSessions(results), now()), failed, nil
}

// FindIn is FindTarget over sessions of every host, taking host:TARGET
// apart first.
func (f *Fleet) FindIn(sessions []Listing, target, wd string) (Listing, error) {
	if h, rest, ok := f.splitHostTarget(target); ok {
		var on []Listing
		for _, s := range sessions {
			if HostOf(s) == h {
				on = append(on, s)
			}
		}
		return FindTarget(on, rest, wd)
	}
	return FindTarget(sessions, target, wd)
}

// splitHostTarget takes "host:rest" apart when host names a configured
// host (or this one); anything else is a target of every host.
func (f *Fleet) splitHostTarget(target string) (host, rest string, ok bool) {
	h, rest, found := strings.Cut(target, ":")
	if !found {
		return "", target, false
	}
	if _, known := f.Host(h); known || h == LocalHostName() {
		return h, rest, true
	}
	return "", target, false
}

// HostOf is a session's host name for display: the local one's too.
func HostOf(s Listing) string {
	if s.Host == "" {
		return LocalHostName()
	}
	return s.Host
}

// remoteHost is s's configured host, or why it is gone.
func (f *Fleet) remoteHost(s Listing) (Host, error) {
	if h, ok := f.Host(s.Host); ok {
		return h, nil
	}
	return Host{}, fmt.Errorf("%s: host %s is no longer in hosts: of config.yaml", s.State.Name, s.Host)
}

// Dial connects to s's supervisor: its socket on this host, or through
// its host's relay (`sup relay --session`). done closes it.
func (f *Fleet) Dial(ctx context.Context, s Listing) (c *ipc.Client, done func(), err error) {
	if s.Host == "" {
		c, err := ipc.Dial(s.Socket, DialTimeout)
		if err != nil {
			return nil, nil, err
		}
		return c, func() { c.Close() }, nil
	}
	h, err := f.remoteHost(s)
	if err != nil {
		return nil, nil, err
	}
	hc, err := f.SSH.DialHost(ctx, h, s.State.SessionID)
	if err != nil {
		return nil, nil, err
	}
	return hc.Client, hc.Close, nil
}

// Call makes one request of c within CallTimeout.
func Call(ctx context.Context, c *ipc.Client, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	return c.Call(ctx, method, params, result)
}

// Call dials s, makes one request and hangs up.
func (f *Fleet) Call(ctx context.Context, s Listing, method string, params, result any) error {
	c, done, err := f.Dial(ctx, s)
	if err != nil {
		return err
	}
	defer done()
	return Call(ctx, c, method, params, result)
}

// Answer answers s's open prompt; a remote session's requester names
// this host.
func (f *Fleet) Answer(ctx context.Context, s Listing, p ipc.AnswerParams) (ipc.AnswerResult, error) {
	var res ipc.AnswerResult
	if s.Host != "" {
		p.Requester = OriginRequester(p.Requester)
	}
	err := f.Call(ctx, s, ipc.MethodAnswer, p, &res)
	return res, err
}

// Skip passes over s for cooldown (0: its own queue.skip_cooldown).
func (f *Fleet) Skip(ctx context.Context, s Listing, cooldown time.Duration) (ipc.SkipResult, error) {
	var res ipc.SkipResult
	err := f.Call(ctx, s, ipc.MethodSkip, ipc.SkipParams{CooldownMS: cooldown.Milliseconds()}, &res)
	return res, err
}

// OriginRequester names the origin host in a remote request's requester,
// so the audit line written on the delivering host says who asked from
// where.
func OriginRequester(requester string) string {
	if strings.Contains(requester, "@") {
		return requester
	}
	return requester + "@" + LocalHostName()
}

// Jump moves the caller's client to s: its pane, on this host (Jump), or
// a local window attached over ssh to its pane on another (JumpRemote).
func (f *Fleet) Jump(ctx context.Context, socket, client string, s Listing) (Jumped, error) {
	if s.Host == "" {
		return Jump(ctx, socket, client, s)
	}
	h, err := f.remoteHost(s)
	if err != nil {
		return Jumped{}, err
	}
	return f.SSH.JumpRemote(ctx, socket, client, h, s)
}

// Metrics is the metrics snapshot of this host and, with hosts:
// configured, of every host (sessions labelled host="…", a sup_host_up per
// host; a host that does not answer costs its deadline and comes back in
// failed).
func (f *Fleet) Metrics(ctx context.Context) (snap Snapshot, failed []error, err error) {
	if len(f.Hosts) == 0 {
		snap, err := CollectMetrics(ctx, f.RuntimeDir, f.Timeout)
		return snap, nil, err
	}
	fo := f.fanout(f.Hosts)
	fo.Metrics = true
	results := fo.DiscoverHosts(ctx, true)
	if results[0].Err != nil {
		return Snapshot{}, nil, results[0].Err
	}
	for _, r := range results[1:] {
		if r.Err != nil {
			failed = append(failed, r.Err)
		}
	}
	return HostsSnapshot(results), failed, nil
}

// Follow streams the events of fo's hosts, and of this host's supervisors
// when local, to emit, one call at a time, until ctx ends or the local
// part fails; a remote host's trouble goes to report and never ends the
// others. Across hosts every event names its host (this one's too).
func (fo Fanout) Follow(ctx context.Context, local bool, emit func(SessionEvent), report func(error)) error {
	if len(fo.Hosts) == 0 {
		return FollowAll(ctx, fo.RuntimeDir, EventsRescan, emit)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	one := func(ev SessionEvent) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Host == "" {
			ev.Host = LocalHostName()
		}
		emit(ev)
	}
	var wg sync.WaitGroup
	for _, h := range fo.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fo.SSH.FollowHost(ctx, h, one, report)
		}()
	}
	var err error
	if local {
		err = FollowAll(ctx, fo.RuntimeDir, EventsRescan, one)
		cancel()
	}
	wg.Wait()
	return err
}

// RunOn runs args (a command line of h, its sup first) on h through ssh,
// on the same multiplexed connection as the relay, with the given stdio.
// The error is ssh's: an *exec.ExitError carries the remote status (255:
// ssh itself failed, its message on stderr).
func (f *Fleet) RunOn(ctx context.Context, h Host, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	argv := f.SSH.Argv(h, false, args...)
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, stderr
	return c.Run()
}
