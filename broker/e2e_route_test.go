//go:build linux

package broker_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// routeProfile is a user profile running fakeagent as an agent that acks
// triggers, "resumes" by setting its title to the conversation id, and
// has a headless resume.
// routeConfig makes fakeagent -ack's marker the trigger's ack.
const routeConfig = `trigger: {ack_marker: "ACK_TRIGGER:{id}", retry_backoff: 100ms}
`

const routeProfile = `command: [fakeagent, -raw, -ack]
resume_args: [-title, "{agent_session_id}"]
headless_resume: [-title, "headless {agent_session_id}", -starts, "{prompt}"]
classify:
  rules:
    - {name: prompt, activity: ready, reason: idle, screen: 'fakeagent ready'}
`

func (f *fleet) routeDoc(name, workspace, role string) string {
	return f.write(name+".md", "---\nsup: {profile: fake, workspace: "+workspace+", role: "+role+"}\n---\n# "+name+"\n")
}

// The routing chain: a live session gets the trigger; with its supervisor
// gone, the last conversation is resumed in a new window of
// agents_<workspace>; with nothing recorded, --doc starts fresh; every step
// is audited with source broker.
func TestE2ERoute(t *testing.T) {
	t.Parallel()
	f := newFleet(t, routeConfig)
	f.write("config/sup/profiles/fake.yaml", routeProfile)
	doc := f.routeDoc("rev", "w1", "reviewer")
	pane := f.tm.NewWindowDir(f.dir, f.env, f.bins.Sup, "start", doc)
	f.tm.WaitFor(t, pane, "fakeagent ready", 10*time.Second)
	f.hook("rev", "SessionStart")

	out := f.mustSup("route", "--workspace", "w1", "--role", "reviewer", "--ack-timeout", "5s", "first task")
	if !strings.Contains(out, "routed to the running session rev: delivered") {
		t.Fatalf("live route: %q", out)
	}
	testutil.WaitUntil(t, 10*time.Second, "sessions.json to hold rev's conversation", func() bool {
		reg, err := store.ReadRegistry(filepath.Join(f.dir, "state", "sup"))
		return err == nil && reg.Sessions[doc].AgentSessionID == "conv-rev" && reg.Sessions[doc].Workspace == "w1"
	})
	f.mustSup("stop", "rev")
	testutil.WaitUntil(t, 10*time.Second, "rev's supervisor to end", func() bool { return len(f.sessions()) == 0 })

	out = f.mustSup("route", "--workspace", "w1", "--role", "reviewer", "--ack-timeout", "5s", "second task")
	if !strings.Contains(out, "routed to rev, resumed in tmux pane %") || !strings.Contains(out, "delivered") {
		t.Fatalf("resume route: %q", out)
	}
	resumed := f.session("rev")
	where, err := f.tm.Run("display-message", "-p", "-t", resumed.State.TmuxPane, "#{session_name} #{window_name}")
	if err != nil || where != "agents_w1 reviewer" {
		t.Fatalf("the resumed window: %q (%v), want agents_w1 reviewer", where, err)
	}
	// resume_args put the conversation id in the title.
	if resumed.State.Title != "conv-rev" || resumed.State.AgentSessionID != "conv-rev" {
		t.Fatalf("resumed agent: title %q agent session %q, want conv-rev", resumed.State.Title, resumed.State.AgentSessionID)
	}
	if f.clientPane() == resumed.State.TmuxPane {
		t.Fatal("routing moved the human's client")
	}

	fresh := f.routeDoc("fresh", "w2", "coder")
	out = f.mustSup("route", "--workspace", "w2", "--doc", fresh, "--ack-timeout", "5s", "third task")
	if !strings.Contains(out, "routed to fresh, started fresh in tmux pane %") {
		t.Fatalf("fresh route: %q", out)
	}

	if out, err := f.sup("route", "--workspace", "nowhere", "x"); err == nil || !strings.Contains(err.Error(), "TARGET_NOT_FOUND") {
		t.Fatalf("route to nothing: %q, %v", out, err)
	}
	steps := map[string]int{}
	data, err := os.ReadFile(filepath.Join(f.dir, "state", "sup", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var a struct{ Source, Step, Route string }
		if json.Unmarshal([]byte(line), &a) == nil && a.Source == "broker" {
			steps[a.Step+"/"+a.Route]++
		}
	}
	for _, want := range []string{"match/live", "trigger/live", "spawn/resume", "started/resume", "trigger/resume", "spawn/fresh", "trigger/fresh", "failed/"} {
		if steps[want] != 1 {
			t.Errorf("audit has %d broker lines %s, want 1 (all: %v)", steps[want], want, steps)
		}
	}
}

// Without tmux the route runs the profile's headless resume detached.
func TestE2ERouteHeadless(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	// Headless means no terminal: fakeagent without -raw.
	f.write("config/sup/profiles/fake.yaml", "command: [fakeagent]\n"+routeProfile[strings.Index(routeProfile, "resume_args"):])
	doc := f.routeDoc("rev", "w1", "reviewer")
	state := filepath.Join(f.dir, "state", "sup")
	data, _ := json.Marshal(store.Registry{Version: 1, Sessions: map[string]store.RegistryEntry{doc: {
		Workspace: "w1", Role: "reviewer", Name: "rev", Document: doc, Profile: "fake", AgentSessionID: "conv-9", CWD: f.dir, UpdatedAt: 1,
	}}})
	f.write("state/sup/sessions.json", string(data))
	env := []string{"PATH=" + filepath.Dir(f.bins.FakeAgent), "HOME=" + f.dir} // no tmux in PATH
	for k, v := range f.env {
		if k != "PATH" {
			env = append(env, k+"="+v)
		}
	}
	// fakeagent's -starts FILE takes the prompt: the file it writes proves
	// the prompt reached the command line.
	out, err := f.supEnv(env, "route", "--workspace", "w1", "--json", "prompt-file")
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Route, Log, Message string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Route != "headless" || !strings.Contains(res.Message, "tmux is not available") ||
		!strings.Contains(res.Message, "no supervisor watches it, and sup treats its tools as you") {
		t.Fatalf("headless route: %q (%v)", out, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(res.Log)
		_, serr := os.Stat(filepath.Join(f.dir, "prompt-file"))
		if strings.Contains(string(b), "headless conv-9") && strings.Contains(string(b), "fakeagent stdin EOF") && serr == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the headless run's output in %s: %q", res.Log, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if b, _ := os.ReadFile(filepath.Join(state, "audit.jsonl")); !strings.Contains(string(b), `"step":"headless"`) {
		t.Fatalf("no headless step in the audit:\n%s", b)
	}
}

// TestE2ERouteBringsBackCommand: sessions.json records what `sup start` was
// given (the command after --, --profile), so a route after a kill -9 of
// the supervisor brings back the same program; with that program deleted
// the route fails at once with sup start's own words naming it, not after
// the start timeout.
func TestE2ERouteBringsBackCommand(t *testing.T) {
	t.Parallel()
	f := newFleet(t, routeConfig)
	f.write("config/sup/profiles/fake.yaml", routeProfile)
	doc := f.write("spam.md", "# spam\n")
	prog := f.write("prog.sh", "#!/bin/sh\necho prog.sh-was-here\nexec fakeagent -raw -ack\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	pane := f.tm.NewWindowDir(f.dir, f.env, f.bins.Sup, "start", "--profile", "fake", "--name", "spam", doc, "--", "./prog.sh")
	f.tm.WaitFor(t, pane, "fakeagent ready", 10*time.Second)
	testutil.WaitUntil(t, 10*time.Second, "sessions.json to record the command", func() bool {
		reg, err := store.ReadRegistry(filepath.Join(f.dir, "state", "sup"))
		e := reg.Sessions[doc]
		return err == nil && len(e.Command) == 1 && e.Command[0] == "./prog.sh" && e.ProfileFlag == "fake" && e.TmuxSocket != ""
	})
	killSupervisor := func() {
		t.Helper()
		s := f.session("spam")
		if err := syscall.Kill(s.State.SupPID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		testutil.WaitUntil(t, 10*time.Second, "the supervisor to be gone", func() bool { return len(f.sessions()) == 0 })
	}
	killSupervisor()

	out := f.mustSup("route", "--name", "spam", "--ack-timeout", "5s", "hi")
	if !strings.Contains(out, "routed to spam, started fresh in tmux pane %") || !strings.Contains(out, "delivered") {
		t.Fatalf("route after kill -9: %q", out)
	}
	back := f.session("spam")
	f.tm.WaitFor(t, back.State.TmuxPane, "prog.sh-was-here", 10*time.Second)
	if back.State.Profile != "fake" {
		t.Fatalf("brought back with profile %q, want fake", back.State.Profile)
	}

	killSupervisor()
	if err := os.Remove(prog); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := f.sup("route", "--name", "spam", "hi again")
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "SPAWN_FAILED") || !strings.Contains(err.Error(), "sup start failed:") ||
		!strings.Contains(err.Error(), "prog.sh") {
		t.Fatalf("route to a deleted program: %v", err)
	}
	// The point is failing at the supervisor's exit, not after the
	// start timeout (30 s): 5 s leaves the suite's load its margin (2 s
	// was exceeded by 0.25 s in a whole-suite run).
	if took > 5*time.Second {
		t.Fatalf("the failed route took %v, want within 5s (the start timeout is 30s)", took)
	}
	if strings.Contains(err.Error(), "see the window") {
		t.Fatalf("the failure points at a window that is gone: %v", err)
	}

	// Outside tmux ($TMUX unset) the session comes back in the tmux
	// server it ran in, not on tmux's default server.
	f.write("prog.sh", "#!/bin/sh\necho prog.sh-is-back\nexec fakeagent -raw -ack\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err = f.supEnv(f.Environ(), "route", "--name", "spam", "--ack-timeout", "5s", "from outside")
	if err != nil || !strings.Contains(out, "delivered") {
		t.Fatalf("route from outside tmux: %q %v", out, err)
	}
	f.tm.WaitFor(t, f.session("spam").State.TmuxPane, "prog.sh-is-back", 10*time.Second)
	killSupervisor()
	// A session that never ran in tmux is not opened on the default
	// server from outside tmux: the route says why and what to do.
	reg, _ := store.ReadRegistry(filepath.Join(f.dir, "state", "sup"))
	e := reg.Sessions[doc]
	e.TmuxSocket, e.AgentSessionID = "", ""
	data, _ := json.Marshal(store.Registry{Version: 1, Sessions: map[string]store.RegistryEntry{doc: e}})
	f.write("state/sup/sessions.json", string(data))
	_, err = f.supEnv(f.Environ(), "route", "--name", "spam", "nowhere to go")
	if err == nil || !strings.Contains(err.Error(), "not inside tmux, and spam never ran in tmux: run sup route inside tmux") {
		t.Fatalf("route from outside tmux of a session never in tmux: %v", err)
	}
}

// A routed session starts with the caller's environment, resolved as
// `sup start` in the caller's shell would resolve it: a variable the
// profile passes through reaches the agent from the caller although the
// tmux server never had it, and a variable only the tmux server has (even
// an allow-listed one) does not. A caller lacking a variable the session
// ran with is refused before any window opens.
func TestE2ERouteCallerEnv(t *testing.T) {
	t.Parallel()
	f := newFleet(t, routeConfig)
	f.write("config/sup/profiles/fake.yaml", "env_passthrough: [ROUTE_TOKEN]\n"+
		strings.Replace(routeProfile, "[fakeagent, -raw, -ack]", "[fakeagent, -raw, -ack, -print-env]", 1))
	doc := f.routeDoc("envy", "w1", "coder")
	env := map[string]string{"ROUTE_TOKEN": "from-the-first-shell"}
	for k, v := range f.env {
		env[k] = v
	}
	pane := f.tm.NewWindowDir(f.dir, env, f.bins.Sup, "start", doc)
	f.tm.WaitFor(t, pane, "ROUTE_TOKEN=from-the-first-shell", 10*time.Second)
	testutil.WaitUntil(t, 10*time.Second, "sessions.json to name ROUTE_TOKEN", func() bool {
		reg, err := store.ReadRegistry(filepath.Join(f.dir, "state", "sup"))
		return err == nil && strings.Join(reg.Sessions[doc].EnvNames, ",") == "ROUTE_TOKEN"
	})
	f.mustSup("stop", "envy")
	testutil.WaitUntil(t, 10*time.Second, "envy's supervisor to end", func() bool { return len(f.sessions()) == 0 })
	// What the tmux server has and the caller does not.
	if _, err := f.tm.Run("set-environment", "-g", "ANTHROPIC_LEFTOVER", "server-only"); err != nil {
		t.Fatal(err)
	}
	windows := func() string {
		out, _ := f.tm.Run("list-windows", "-a", "-F", "#{pane_id}")
		return out
	}
	before := windows()
	caller := append(f.Environ(), fmt.Sprintf("TMUX=%s,%d,0", f.tm.SocketPath, f.tm.ServerPID))
	_, err := f.supEnv(caller, "route", "--name", "envy", "no token")
	if err == nil || !strings.Contains(err.Error(), "ROUTE_TOKEN is not set here, and envy ran with it: run sup route from a shell that has it") {
		t.Fatalf("route without the token: %v", err)
	}
	if after := windows(); after != before {
		t.Fatalf("a refused route opened a window: %q, was %q", after, before)
	}
	out, err := f.supEnv(append(caller, "ROUTE_TOKEN=from-the-caller"), "route", "--name", "envy", "--ack-timeout", "5s", "with token")
	if err != nil || !strings.Contains(out, "delivered") {
		t.Fatalf("route with the token: %q %v", out, err)
	}
	back := f.session("envy").State.TmuxPane
	f.tm.WaitFor(t, back, "ROUTE_TOKEN=from-the-caller", 10*time.Second)
	if screen := f.tm.CaptureAll(back); strings.Contains(screen, "ANTHROPIC_LEFTOVER") {
		t.Fatalf("the tmux server's variable reached the routed agent:\n%s", screen)
	}
	// Nothing secret on disk: sessions.json and the audit name it, no value.
	for _, rel := range []string{"state/sup/sessions.json", "state/sup/audit.jsonl"} {
		data, _ := os.ReadFile(filepath.Join(f.dir, rel))
		if strings.Contains(string(data), "from-the-") {
			t.Fatalf("%s holds the variable's value:\n%s", rel, data)
		}
	}
}

// TestE2ERoutePlantedResumeID: sessions.json is writable by any agent of
// the uid. A recorded conversation id that is not of the profile's
// resume_id_pattern (here a flag) is never passed to sup start: the route
// starts the session fresh and says why; without tmux the headless route
// fails naming the refused id, not a missing headless_resume.
func TestE2ERoutePlantedResumeID(t *testing.T) {
	t.Parallel()
	f := newFleet(t, routeConfig)
	f.write("config/sup/profiles/fake.yaml", routeProfile)
	doc := f.routeDoc("rev", "w1", "reviewer")
	planted := "--dangerously-skip-permissions"
	data, _ := json.Marshal(store.Registry{Version: 1, Sessions: map[string]store.RegistryEntry{doc: {
		Workspace: "w1", Role: "reviewer", Name: "rev", Document: doc, Profile: "fake", AgentSessionID: planted, CWD: f.dir, UpdatedAt: 1,
	}}})
	f.write("state/sup/sessions.json", string(data))

	// Without tmux: the headless route names the refused id.
	env := []string{"PATH=" + filepath.Dir(f.bins.FakeAgent), "HOME=" + f.dir}
	for k, v := range f.env {
		if k != "PATH" {
			env = append(env, k+"="+v)
		}
	}
	_, err := f.supEnv(env, "route", "--name", "rev", "headless?")
	if err == nil || !strings.Contains(err.Error(), "RESUME_FAILED") || !strings.Contains(err.Error(), "is refused") ||
		!strings.Contains(err.Error(), "starts with -") || strings.Contains(err.Error(), "has no headless_resume") {
		t.Fatalf("headless route with a planted id: %v", err)
	}

	out, err := f.sup("route", "--name", "rev", "--ack-timeout", "5s", "hello")
	if err != nil {
		t.Fatalf("route with a planted id: %q %v", out, err)
	}
	if !strings.Contains(out, "routed to rev, started fresh in tmux pane %") || !strings.Contains(out, "delivered") ||
		!strings.Contains(out, "is refused") || !strings.Contains(out, "starts with -") {
		t.Fatalf("route with a planted id: %q", out)
	}
	if st := f.session("rev").State; st.Title == planted || st.AgentSessionID == planted {
		t.Fatalf("the planted id reached the agent: title %q agent session %q", st.Title, st.AgentSessionID)
	}
	b, _ := os.ReadFile(filepath.Join(f.dir, "state", "sup", "audit.jsonl"))
	if !strings.Contains(string(b), `"step":"spawn","query":"name=rev"`) || !strings.Contains(string(b), "is refused") {
		t.Fatalf("the audit does not say why the route started fresh:\n%s", b)
	}
}
