//go:build linux

package broker

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/internal/tmux"
	"github.com/sup-tmux/sup/ipc"
)

// RouteQuery names the session a trigger is for; empty fields match
// anything, and at least one must be given.
type RouteQuery struct {
	Workspace, Role, Name string
}

func (q RouteQuery) match(workspace, role, name string) bool {
	return (q.Workspace == "" || q.Workspace == workspace) && (q.Role == "" || q.Role == role) && (q.Name == "" || q.Name == name)
}

func (q RouteQuery) String() string {
	var p []string
	for _, kv := range [][2]string{{"workspace", q.Workspace}, {"role", q.Role}, {"name", q.Name}} {
		if kv[1] != "" {
			p = append(p, kv[0]+"="+kv[1])
		}
	}
	return strings.Join(p, " ")
}

// How a route reached its session.
const (
	RouteLive     = "live"     // a supervisor was running
	RouteResume   = "resume"   // started in tmux, resuming the last conversation
	RouteFresh    = "fresh"    // started in tmux, a new conversation
	RouteHeadless = "headless" // no tmux: the profile's headless resume, detached
)

// Router is `sup route`: it finds the session a query names and sends it a
// trigger, bringing the session back when no supervisor runs for it.
type Router struct {
	RuntimeDir string
	StateDir   string // sessions.json, audit.jsonl, headless logs
	ConfigDir  string // profiles
	Sup        string // this binary's absolute path, run in new windows
	TmuxSocket string // the tmux server to open windows in ("": outside tmux, see server)
	// DefaultServer lets a route from outside tmux open a window on tmux's
	// default server (--tmux-default; what `sup route --host` asks of the
	// other host, whose user's tmux that is).
	DefaultServer bool
	Document      string // --doc: what to start when nothing is known
	Env           []string
	// StartTimeout bounds the wait for a new supervisor to answer.
	StartTimeout time.Duration
	// TriggerWait bounds the trigger call: long, since a trigger with
	// wait blocks until its final outcome.
	TriggerWait time.Duration
	// Progress, when set, follows a waiting trigger's progress while
	// deliver waits for its outcome (the CLI says why it waits, as a
	// waiting `sup trigger` does: specs/triggers.md); stop ends it.
	Progress func(ctx context.Context, s Listing, triggerID string) (stop func())
	// AuditLimits rotate the audit trail the routing steps are appended to
	// (config.yaml's audit:; zero fields: defaults).
	AuditLimits store.AuditConfig
}

// RouteResult is what happened, step by step in the audit.
type RouteResult struct {
	Route     string             `json:"route"` // live, resume, fresh, headless
	Session   string             `json:"session,omitempty"`
	Name      string             `json:"name,omitempty"`
	Document  string             `json:"document,omitempty"`
	Pane      string             `json:"pane,omitempty"`
	PID       int                `json:"pid,omitempty"` // the headless process
	Log       string             `json:"log,omitempty"` // the headless process's output
	Trigger   *ipc.TriggerResult `json:"trigger,omitempty"`
	ErrorCode ipc.Code           `json:"error_code,omitempty"`
	Message   string             `json:"message,omitempty"`
}

// routeAudit is one broker line of audit.jsonl.
type routeAudit struct {
	Time      int64       `json:"time"`
	Source    string      `json:"source"` // always "broker"
	Step      string      `json:"step"`   // match, spawn, started, trigger, headless, failed
	Query     string      `json:"query"`
	TriggerID string      `json:"trigger_id"`
	Route     string      `json:"route,omitempty"`
	Session   string      `json:"session,omitempty"`
	Document  string      `json:"document,omitempty"`
	Pane      string      `json:"pane,omitempty"`
	PID       int         `json:"pid,omitempty"`
	Result    ipc.Outcome `json:"result,omitempty"`
	ErrorCode ipc.Code    `json:"error_code,omitempty"`
	Message   string      `json:"message,omitempty"`
}

// audit appends a step; a failing audit is reported in the result's
// message, never hides the route's own outcome.
func (r *Router) audit(res *RouteResult, a routeAudit) {
	a.Time, a.Source = time.Now().UnixMilli(), "broker"
	audit := store.NewAudit(r.StateDir, r.AuditLimits)
	defer audit.Close()
	if err := audit.Append(a); err != nil {
		res.Message = strings.TrimSpace(res.Message + " [audit failed: " + err.Error() + "]")
	}
}

// fail records a failed route with one of the protocol's error codes
// (specs/ipc.md).
func (r *Router) fail(res RouteResult, q RouteQuery, p ipc.TriggerParams, code ipc.Code, format string, args ...any) (RouteResult, error) {
	res.ErrorCode, res.Message = code, fmt.Sprintf(format, args...)
	r.audit(&res, routeAudit{Step: "failed", Query: q.String(), TriggerID: p.TriggerID, Route: res.Route, Session: res.Session,
		Document: res.Document, Pane: res.Pane, ErrorCode: code, Message: res.Message})
	return res, ipc.Errorf(code, "route %s: %s", q, res.Message)
}

// Route delivers p to the session q names. Without a live match it walks
// the fallback chain: resume the last known conversation for q in a new
// tmux window of agents_<workspace>, else start q's document fresh there,
// else (tmux unavailable) run the profile's headless resume detached.
func (r *Router) Route(ctx context.Context, q RouteQuery, p ipc.TriggerParams) (RouteResult, error) {
	var res RouteResult
	if q == (RouteQuery{}) {
		return res, errors.New("route: name the session with --workspace, --role and/or --name")
	}
	live, err := r.live(ctx, q, false)
	if err == nil && len(live) > 1 {
		// The files may name a session whose supervisor was killed (see
		// below): a listing confirms each before the route refuses.
		live, err = r.live(ctx, q, true)
	}
	if err != nil {
		return res, err
	}
	var c *ipc.Client
	if len(live) == 1 {
		if c, err = ipc.Dial(live[0].Socket, 2*time.Second); errors.Is(err, syscall.ENOENT) || isStale(err) {
			// Its facts outlived its supervisor: killed, it left its
			// socket and queue file for its guard's sweep, which may not
			// have run yet. A listing removes them; q is routed on what
			// it finds, which brings the session back as after the sweep.
			if live, err = r.live(ctx, q, true); err != nil {
				return res, err
			}
			if len(live) == 1 {
				c, err = ipc.Dial(live[0].Socket, 2*time.Second)
			}
		}
	}
	if len(live) > 1 {
		return r.fail(res, q, p, ipc.CodeBadRequest, "%d live sessions match; narrow it with --name or --role:%s", len(live), listing(live))
	}
	if len(live) == 1 {
		s := live[0]
		res = RouteResult{Route: RouteLive, Session: s.State.SessionID, Name: s.State.Name, Document: s.State.Document, Pane: s.State.TmuxPane}
		r.audit(&res, routeAudit{Step: "match", Query: q.String(), TriggerID: p.TriggerID, Route: RouteLive, Session: res.Session, Document: res.Document})
		if err != nil {
			return r.fail(res, q, p, ipc.CodeTargetNotFound, "connect to %s: %v", s.State.Name, Stale(s, err))
		}
		defer c.Close()
		return r.deliver(ctx, res, s, c, q, p)
	}

	known, ok, err := r.lastKnown(q)
	if err != nil {
		return res, err
	}
	switch {
	case ok && r.Document != "" && known.Document != r.Document:
		known = store.RegistryEntry{Document: r.Document, Workspace: q.Workspace, Role: q.Role, Name: q.Name}
	case !ok && r.Document == "":
		return r.fail(res, q, p, ipc.CodeTargetNotFound,
			"no live session matches and %s records none; give --doc DOC to start one", store.RegistryFile)
	case !ok:
		known = store.RegistryEntry{Document: r.Document, Workspace: q.Workspace, Role: q.Role, Name: q.Name}
	}
	res.Document, res.Route = known.Document, RouteFresh
	if known.AgentSessionID != "" {
		res.Route = RouteResume
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return r.headless(ctx, res, known, q, p)
	}
	return r.spawn(ctx, res, known, q, p)
}

// lastKnown is the newest sessions.json entry matching q.
func (r *Router) lastKnown(q RouteQuery) (store.RegistryEntry, bool, error) {
	reg, err := store.ReadRegistry(r.StateDir)
	if err != nil {
		return store.RegistryEntry{}, false, err
	}
	var best store.RegistryEntry
	found := false
	for _, e := range reg.Sessions {
		if q.match(e.Workspace, e.Role, e.Name) && (!found || e.UpdatedAt > best.UpdatedAt) {
			best, found = e, true
		}
	}
	return best, found, nil
}

var slugBad = regexp.MustCompile(`[^a-z0-9_-]+`)

// TmuxSessionName is the tmux session of a workspace:
// agents_<workspace_slug> (specs/broker.md, "Routing").
func TmuxSessionName(workspace string) string {
	slug := strings.Trim(slugBad.ReplaceAllString(strings.ToLower(workspace), "_"), "_")
	if slug == "" {
		slug = "default"
	}
	return "agents_" + slug
}

// passEnv are the caller's variables a new window's supervisor needs
// itself, to land where this broker looks, besides those its agent gets.
var passEnv = []string{"SUP_RUNTIME_DIR", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "PATH", "HOME"}

// callerEnv is the environment of the `sup start` a route runs in a new
// window: the caller's variables that `sup start` in the caller's shell
// would give the agent (the plan resolved here, in the caller's
// environment: allow-list, env_passthrough, what the frontmatter's env
// names) and passEnv, as NAME=VALUE for the window (tmux's -e: per
// window, nothing on disk) and their names for --caller-env, so the start
// uses those and not the tmux server's environment. **Decision**
// (specs/broker.md, "Routing"): a variable the session ran with and cannot
// do without (sessions.json's env_names) missing in the caller refuses the
// route before anything starts. The profile is the one that start will run.
func (r *Router) callerEnv(e store.RegistryEntry) (env, names []string, prof plan.Profile, err error) {
	for _, k := range e.EnvNames {
		if _, ok := lookupEnv(r.Env, k); !ok {
			who := cmp.Or(e.Name, e.Document)
			return nil, nil, prof, fmt.Errorf("%s is not set here, and %s ran with it: run sup route from a shell that has it (or start %s anew with sup start from here)", k, who, who)
		}
	}
	dir := e.CWD
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, nil, prof, fmt.Errorf("current directory: %w", err)
		}
	}
	pl, err := plan.Resolve(plan.Options{Document: e.Document, CWD: e.CWDFlag, Profile: e.ProfileFlag, Command: e.Command,
		InvocationDir: dir, Environ: r.Env})
	if err != nil {
		return nil, nil, prof, fmt.Errorf("sup start would fail: %w", err)
	}
	for _, k := range append(pl.CallerNames(), passEnv...) {
		v, ok := lookupEnv(r.Env, k)
		if !ok || slices.Contains(plan.TerminalNames, k) || slices.Contains(names, k) {
			continue
		}
		env, names = append(env, k+"="+v), append(names, k)
	}
	return env, names, pl.Profile, nil
}

// refusedResume says why e's recorded conversation cannot be resumed with
// prof, or "" when it can. sessions.json is a file any agent of the uid
// can write: an id that is not of the profile's resume_id_pattern never
// reaches argv (plan.Profile.CheckAgentSessionID; specs/security.md,
// "Hook data is data").
func refusedResume(e store.RegistryEntry, prof plan.Profile) string {
	err := prof.CheckAgentSessionID(e.AgentSessionID)
	if err == nil {
		return ""
	}
	return fmt.Sprintf("the conversation %s records for %s is refused: %v", store.RegistryFile, cmp.Or(e.Name, e.Document), err)
}

// spawn starts a supervisor for e in a new window of its workspace's tmux
// session (created if absent), waits for it to answer and delivers p.
func (r *Router) spawn(ctx context.Context, res RouteResult, e store.RegistryEntry, q RouteQuery, p ipc.TriggerParams) (RouteResult, error) {
	code := ipc.CodeSpawnFailed
	if res.Route == RouteResume {
		code = ipc.CodeResumeFailed
	}
	workspace := cmp.Or(q.Workspace, e.Workspace)
	role := cmp.Or(q.Role, e.Role, "agent")
	session := TmuxSessionName(workspace)
	report := paths.RouteReport(r.RuntimeDir, os.Getpid(), time.Now().UnixNano())
	defer os.Remove(report) // Best effort: absent when the start went well.
	env, names, prof, err := r.callerEnv(e)
	if err != nil {
		return r.fail(res, q, p, code, "%v", err)
	}
	if res.Route == RouteResume {
		if why := refusedResume(e, prof); why != "" {
			// Started fresh, as a supervisor's own restart would be.
			res.Route, code, e.AgentSessionID = RouteFresh, ipc.CodeSpawnFailed, ""
			res.Message = "(" + why + "; started fresh)"
		}
	}
	argv := append([]string{r.Sup}, startArgs(res, e, q, report, names)...)
	command := shellquote.Join(argv...)
	server, err := r.server(ctx, e)
	if err != nil {
		if e.AgentSessionID != "" {
			return r.headless(ctx, res, e, q, p)
		}
		return r.fail(res, q, p, code, "%v", err)
	}
	// A window by default; the session's first window when the session
	// is new. Detached: never switch anyone's client (no focus stealing).
	// The role is the caller's text: tmux.Window escapes it.
	srv := tmux.Server{Socket: server}
	w := tmux.Window{Session: session, Name: role, Detached: true, Print: "#{pane_id}", Dir: e.CWD, Command: "exec " + command}
	if _, err := srv.Run(ctx, "has-session", "-t", "="+session); err != nil {
		w.NewSession = true
	}
	w.Env = env
	pane, err := srv.NewWindow(ctx, w)
	if err != nil {
		if ctx.Err() == nil && !tmuxServerUsable(ctx, server) {
			return r.headless(ctx, res, e, q, p) // tmux is installed but cannot run a server
		}
		return r.fail(res, q, p, code, "open a tmux window in %s: %v", session, err)
	}
	res.Pane = pane
	r.audit(&res, routeAudit{Step: "spawn", Query: q.String(), TriggerID: p.TriggerID, Route: res.Route, Document: e.Document, Pane: pane,
		Message: strings.TrimSpace(res.Message + " tmux " + session + ": " + strings.Join(argv, " "))})
	s, err := r.waitStarted(ctx, server, pane, e.Document, report)
	var se *startError
	switch {
	case errors.As(err, &se):
		return r.fail(res, q, p, code, "%v", err)
	case err != nil:
		return r.fail(res, q, p, code, "%v (see the window %s in tmux session %s)", err, pane, session)
	}
	res.Session, res.Name = s.State.SessionID, s.State.Name
	r.audit(&res, routeAudit{Step: "started", Query: q.String(), TriggerID: p.TriggerID, Route: res.Route, Session: res.Session, Document: e.Document, Pane: pane})
	c, err := ipc.Dial(s.Socket, 2*time.Second)
	if err != nil {
		return r.fail(res, q, p, ipc.CodeTargetNotFound, "connect to %s: %v", s.State.Name, err)
	}
	defer c.Close()
	return r.deliver(ctx, res, s, c, q, p)
}

// tmuxServerUsable reports whether a tmux server answers or can be
// started at socket.
func tmuxServerUsable(ctx context.Context, socket string) bool {
	_, err := tmux.Server{Socket: socket}.Run(ctx, "start-server")
	return err == nil
}

// live is the running sessions q matches, found as Fleet.Find finds one
// (specs/broker.md, "Finding one session"): from the queue files, asking
// only the sockets without one. When none matches, every socket is asked
// (a listing, which removes stale sockets as the start would) before a
// session may be started for q: the files are a cache, and a second
// session for a document must not come of a fact not yet written.
//
// listed true skips the files and lists at once (Route's second look, when
// the one session they named had no supervisor behind its socket, or
// they named several).
func (r *Router) live(ctx context.Context, q RouteQuery, listed bool) ([]Listing, error) {
	var (
		sessions []Listing
		cached   bool
		err      error
	)
	if !listed {
		if sessions, _, cached, err = localSessions(ctx, r.RuntimeDir); err != nil {
			return nil, err
		}
	}
	matching := func(sessions []Listing) []Listing {
		var live []Listing
		for _, s := range sessions {
			if q.match(s.State.Workspace, s.State.Role, s.State.Name) {
				live = append(live, s)
			}
		}
		return live
	}
	live := matching(sessions)
	if len(live) == 0 && (cached || listed) {
		d, err := Discover(ctx, r.RuntimeDir, time.Second)
		if err != nil {
			return nil, err
		}
		live = matching(d.Sessions)
	}
	return live, nil
}

// waitStarted waits for the supervisor in pane to answer and for its
// agent to be ready for input (activity ready), so the trigger's paste
// does not land in a half-started program. An agent that never says ready
// within the timeout gets the trigger anyway: the trigger's own gates and
// acks then decide (specs/broker.md). A start that fails ends at once
// with its own words (a *startError): `sup start` writes them to report,
// and a window that closed without a word is a failure too, not a wait.
func (r *Router) waitStarted(ctx context.Context, server, pane, document, report string) (Listing, error) {
	deadline := time.Now().Add(r.StartTimeout)
	var seen *Listing
	for {
		if err := startFailure(ctx, server, pane, report); err != nil {
			return Listing{}, err
		}
		d, err := Discover(ctx, r.RuntimeDir, time.Second)
		if err != nil {
			return Listing{}, err
		}
		for _, s := range d.Sessions {
			if s.State.TmuxPane != pane || s.State.Document != document {
				continue
			}
			switch s.State.Lifecycle {
			case "halted", "stopped", "exited":
				return Listing{}, fmt.Errorf("its agent did not start: lifecycle %s", s.State.Lifecycle)
			}
			if s.State.Lifecycle == "running" && s.State.Activity == "ready" {
				return s, nil
			}
			seen = &s
		}
		if time.Now().After(deadline) {
			if seen != nil && seen.State.Lifecycle == "running" {
				return *seen, nil
			}
			return Listing{}, fmt.Errorf("no supervisor answered from pane %s within %s", pane, r.StartTimeout)
		}
		select {
		case <-ctx.Done():
			return Listing{}, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// startError is a supervisor that failed to start, in its own words.
type startError struct{ msg string }

func (e *startError) Error() string { return e.msg }

// startFailure reports a start that failed: the words `sup start` wrote to
// report, or a pane that is gone without any.
func startFailure(ctx context.Context, server, pane, report string) error {
	if b, err := os.ReadFile(report); err == nil && len(bytes.TrimSpace(b)) > 0 {
		return &startError{"sup start failed: " + string(bytes.TrimSpace(b))}
	}
	if _, err := (tmux.Server{Socket: server}).Query(ctx, pane, "#{pane_id}"); err != nil && ctx.Err() == nil {
		// The report is written before the pane closes: look once more.
		if b, err := os.ReadFile(report); err == nil && len(bytes.TrimSpace(b)) > 0 {
			return &startError{"sup start failed: " + string(bytes.TrimSpace(b))}
		}
		return &startError{fmt.Sprintf("the window %s closed before its supervisor answered", pane)}
	}
	return nil
}

// startArgs is the `sup start` command line that brings e back: what it
// was started with (the command after --, --profile, --cwd, as recorded
// in sessions.json), the query's labels over the recorded ones, and the
// conversation to resume.
func startArgs(res RouteResult, e store.RegistryEntry, q RouteQuery, report string, callerEnv []string) []string {
	argv := []string{"start", "--start-report", report, "--caller-env", strings.Join(callerEnv, ",")}
	if res.Route == RouteResume {
		argv = append(argv, "--resume-id", e.AgentSessionID)
	}
	for _, f := range [][2]string{
		{"--workspace", cmp.Or(q.Workspace, e.Workspace)}, {"--role", cmp.Or(q.Role, e.Role)}, {"--name", cmp.Or(q.Name, e.Name)},
		{"--profile", e.ProfileFlag}, {"--cwd", e.CWDFlag},
	} {
		if f[1] != "" {
			argv = append(argv, f[0], f[1])
		}
	}
	argv = append(argv, e.Document)
	if len(e.Command) > 0 {
		argv = append(append(argv, "--"), e.Command...)
	}
	return argv
}

// server is the tmux server a session comes back in. **Decision**
// (specs/broker.md, "Routing"): the caller's, inside tmux; outside tmux
// the one the session last ran in, while it runs; tmux's default server
// only when asked (DefaultServer), never by accident, where a session
// would run unseen.
func (r *Router) server(ctx context.Context, e store.RegistryEntry) (string, error) {
	if r.TmuxSocket != "" {
		return r.TmuxSocket, nil
	}
	if e.TmuxSocket != "" {
		if _, err := (tmux.Server{Socket: e.TmuxSocket}).Run(ctx, "list-sessions"); err == nil {
			return e.TmuxSocket, nil
		}
	}
	if r.DefaultServer {
		return "", nil
	}
	if e.TmuxSocket != "" {
		return "", fmt.Errorf("not inside tmux, and the tmux server %s ran in (%s) is gone: run sup route inside tmux to open it there, or pass --tmux-default", e.Name, e.TmuxSocket)
	}
	return "", fmt.Errorf("not inside tmux, and %s never ran in tmux: run sup route inside tmux to open it there, or pass --tmux-default (a window on the default tmux server runs unseen until you attach to it)", cmp.Or(e.Name, e.Document))
}

// deliver sends the trigger to s on c, a connection to its socket.
func (r *Router) deliver(ctx context.Context, res RouteResult, s Listing, c *ipc.Client, q RouteQuery, p ipc.TriggerParams) (RouteResult, error) {
	ctx, cancel := context.WithTimeout(ctx, r.TriggerWait)
	defer cancel()
	if res.Route == RouteLive {
		// Found from its cached facts (live): its own state, on the one
		// connection, confirms it and gives the pane the facts lack.
		var st ipc.State
		if err := Call(ctx, c, ipc.MethodState, nil, &st); err != nil {
			return r.fail(res, q, p, ipc.CodeTargetNotFound, "ask %s its state: %v", s.State.Name, err)
		}
		if st.SessionID != s.State.SessionID || !q.match(st.Workspace, st.Role, st.Name) {
			return r.fail(res, q, p, ipc.CodeTargetNotFound, "session %s no longer matches %s (it is %q now); route again", st.SessionID, q, st.Name)
		}
		res.Pane = st.TmuxPane
	}
	if r.Progress != nil {
		defer r.Progress(ctx, s, p.TriggerID)()
	}
	var tr ipc.TriggerResult
	if err := c.Call(ctx, ipc.MethodTrigger, p, &tr); err != nil {
		code := ipc.CodeInternal
		var pe *ipc.Error
		if errors.As(err, &pe) {
			code = pe.Code
		}
		return r.fail(res, q, p, code, "trigger %s: %v", s.State.Name, err)
	}
	res.Trigger = &tr
	r.audit(&res, routeAudit{Step: "trigger", Query: q.String(), TriggerID: p.TriggerID, Route: res.Route, Session: res.Session,
		Document: res.Document, Result: tr.Result, ErrorCode: tr.ErrorCode, Message: tr.Message})
	return res, nil
}

// headless runs the profile's headless resume detached, when tmux cannot
// host a supervisor. It needs a known conversation: a fresh headless run
// would answer into nowhere.
func (r *Router) headless(ctx context.Context, res RouteResult, e store.RegistryEntry, q RouteQuery, p ipc.TriggerParams) (RouteResult, error) {
	res.Route = RouteHeadless
	if e.AgentSessionID == "" {
		return r.fail(res, q, p, ipc.CodeSpawnFailed, "tmux is not available and no conversation is known to resume headless for %s", e.Document)
	}
	prof, err := plan.LoadProfile(r.ConfigDir, cmp.Or(e.Profile, "claude"))
	if err != nil {
		return r.fail(res, q, p, ipc.CodeResumeFailed, "tmux is not available; profile: %v", err)
	}
	env := map[string]string{}
	for _, kv := range r.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if why := refusedResume(e, prof); why != "" {
		return r.fail(res, q, p, ipc.CodeResumeFailed, "tmux is not available and %s; a headless run needs a conversation to resume", why)
	}
	argv, ok := prof.HeadlessArgv(e.AgentSessionID, p.Prompt, env)
	if !ok {
		return r.fail(res, q, p, ipc.CodeResumeFailed, "tmux is not available and profile %s has no headless_resume", prof.Name)
	}
	if err := os.MkdirAll(r.StateDir, 0o700); err != nil {
		return r.fail(res, q, p, ipc.CodeResumeFailed, "%v", err)
	}
	logPath := paths.HeadlessLog(r.StateDir, time.Now().UnixMilli())
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return r.fail(res, q, p, ipc.CodeResumeFailed, "headless log: %v", err)
	}
	defer out.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = e.CWD, r.Env, out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // detached: outlives this broker and its terminal
	if err := cmd.Start(); err != nil {
		return r.fail(res, q, p, ipc.CodeResumeFailed, "tmux is not available; headless resume %s: %v", argv[0], err)
	}
	res.PID, res.Log = cmd.Process.Pid, logPath
	_ = cmd.Process.Release() // Best effort: detached on purpose; init reaps it.
	// Said in every headless answer: such an agent has no supervisor, so
	// nothing encloses its tools and every supervisor takes them for the
	// operator (specs/security.md, "What sup cannot stop").
	res.Message = fmt.Sprintf("tmux is not available: ran the %s profile's headless resume of %s detached (pid %d, output in %s); started headless: no supervisor watches it, and sup treats its tools as you, the operator", prof.Name, e.AgentSessionID, res.PID, logPath)
	r.audit(&res, routeAudit{Step: "headless", Query: q.String(), TriggerID: p.TriggerID, Route: RouteHeadless, Document: e.Document,
		PID: res.PID, Message: res.Message})
	return res, nil
}

func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}
