//go:build linux

package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// ScreenTimeout bounds an Agent's waits. A real agent is at its prompt in
// a few seconds; a loaded CI machine running sup with -race takes longer.
const ScreenTimeout = 45 * time.Second

// EchoTimeout bounds Type's wait for the typed text to show.
const EchoTimeout = 10 * time.Second

// Agent is a real agent CLI (Claude Code, Codex) running under `sup start`
// in a tmux pane; every Start helper returns one.
type Agent struct {
	Tmux  *testutil.Tmux
	Pane  string            // the tmux pane sup runs in
	Model *fakemodel.Server // the model stand-in the agent talks to
	Dir   string            // the project directory: the agent's cwd, holding Doc
	Doc   string            // the session document sup was started with
	Home  string            // the agent's private HOME
	Env   map[string]string // what the pane's environment adds (sandbox, sup's private dirs)
	Sup   string            // the sup binary
	T     testing.TB        // the test the helpers below fail; StartUnderSup sets it
}

// SupStart is what StartUnderSup needs besides Options: a prepared
// sandbox and model.
type SupStart struct {
	Profile string            // sup's profile: claude, codex
	Dir     string            // the project directory
	Home    string            // the sandbox's HOME
	Env     map[string]string // the sandbox's environment
	Model   *fakemodel.Server
}

// agentEnvPrefixes are the variables of the test's own environment that
// could steer an agent (keys, endpoints, models, config dirs); the tmux
// server inherited them, so they are unset there unless the sandbox sets
// them.
var agentEnvPrefixes = []string{"ANTHROPIC_", "CLAUDE", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "DISABLE_"}

// StartUnderSup writes a session document in s.Dir and runs `sup start
// --profile <s.Profile> DOC` in a new pane of tm, o.Cols x o.Rows, with
// the sandbox's environment, and private sup runtime, config and state
// directories. The document's env_passthrough names every sandbox and
// WithEnv variable, so sup hands the agent exactly those beside its
// allow-list. It returns at once; wait for the agent's screen.
func StartUnderSup(t testing.TB, tm *testutil.Tmux, s SupStart, o Options) *Agent {
	t.Helper()
	if testing.Short() {
		t.Skip("real agent under sup: skipped with -short")
	}
	recordDrift(t, s.Profile)
	sup := testutil.BuildPackage(t, "./cmd/sup")
	// Short: socket paths must stay under the 108-byte sun_path limit.
	rt, err := os.MkdirTemp("", "sup-rt-")
	if err != nil {
		t.Fatalf("sup runtime dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	supDirs := t.TempDir()

	env := map[string]string{}
	for k, v := range s.Env {
		env[k] = v
	}
	for k, v := range o.Env {
		env[k] = v
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	env["SUP_RUNTIME_DIR"] = rt
	env["GORACE"] = raceOptions()
	env["XDG_CONFIG_HOME"] = filepath.Join(supDirs, "config")
	env["XDG_STATE_HOME"] = filepath.Join(supDirs, "state")
	if o.SupConfig != "" {
		writeSandboxFile(t, filepath.Join(supDirs, "config", "sup", "config.yaml"), o.SupConfig)
	}

	quoted, _ := json.Marshal(names) // a JSON list of strings is YAML too
	doc := filepath.Join(s.Dir, "session.md")
	writeSandboxFile(t, doc, fmt.Sprintf("---\nsup:\n  env_passthrough: %s\n---\n# %s under sup, started by agenttest\n", quoted, s.Profile))

	unsetInherited(t, tm, env)
	argv := []string{sup, "start", "--profile", s.Profile, doc}
	gate := ""
	if len(o.BeforeStart) > 0 {
		gate = "agenttest-start-" + filepath.Base(rt)
		argv = gatedCommand(t, tm, gate, argv)
	}
	pane := tm.NewWindowSize(s.Dir, o.Cols, o.Rows, env, argv...)
	a := &Agent{Tmux: tm, Pane: pane, Model: s.Model, Dir: s.Dir, Doc: doc, Home: s.Home, Env: env, Sup: sup, T: t}
	// Runs before tm's own cleanup (registered earlier), while the pane
	// still shows what went wrong.
	t.Cleanup(func() { a.shutdown("SUP_RUNTIME_DIR=" + rt) })
	if gate != "" {
		for _, f := range o.BeforeStart {
			f(a)
		}
		if _, err := tm.Run("wait-for", "-S", gate); err != nil {
			t.Fatalf("start sup in pane %s: %v", pane, err)
		}
	}
	return a
}

// gatedCommand wraps argv so that it runs only once the tmux channel gate
// is signalled (`tmux wait-for -S gate`; a signal sent before the wait
// counts). The wait writes nothing to the pane, and exec hands the pane's
// process over to argv.
func gatedCommand(t testing.TB, tm *testutil.Tmux, gate string, argv []string) []string {
	t.Helper()
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatalf("tmux: %v", err)
	}
	script := `"$1" -S "$2" wait-for "$3" && shift 3 && exec "$@"`
	return append([]string{"/bin/sh", "-c", script, "sh", tmuxBin, tm.SocketPath, gate}, argv...)
}

// shutdownTimeout covers sup's stop grace (5 s) and a little more.
const shutdownTimeout = 8 * time.Second

// shutdown ends sup and the agent, also when the test failed: closing the
// pane hangs up sup, which ends the agent's process group; then whatever
// still carries mark (NAME=value) in its environment — sup, the agent,
// anything they started in sessions of their own — is killed. On failure
// it first logs the screen and the model's requests.
func (a *Agent) shutdown(mark string) {
	if a.T.Failed() {
		if out, err := a.Tmux.Run("capture-pane", "-p", "-J", "-t", a.Pane); err == nil {
			a.T.Logf("pane %s at cleanup:\n%s", a.Pane, out)
		}
		for _, r := range a.Model.Requests() {
			a.T.Logf("model request: %s %s side=%v user=%q result=%v turn=%+v", r.Method, r.Path, r.Side, r.UserText, r.HasResult, r.Turn)
		}
		// The session log says what sup decided (a trigger's gates, ack,
		// outcome): a failure seen only in CI is read from it.
		logs, _ := filepath.Glob(filepath.Join(a.Env["XDG_STATE_HOME"], "sup", "*.log"))
		for _, l := range logs {
			if b, err := os.ReadFile(l); err == nil {
				lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
				a.T.Logf("session log %s (last %d of %d lines):\n%s", filepath.Base(l), min(len(lines), 150), len(lines), strings.Join(lines[max(0, len(lines)-150):], "\n"))
			}
		}
	}
	_, _ = a.Tmux.Run("kill-pane", "-t", a.Pane) // Gone already is fine.
	killMarked(a.T, "agent cleanup", mark, shutdownTimeout)
}

// killMarked waits up to timeout for every process, other than this one,
// whose environment holds mark (NAME=value) to end, then kills those
// left, logging each under what.
func killMarked(t testing.TB, what, mark string, timeout time.Duration) {
	for _, p := range testutil.WaitProcsGone(time.Now().Add(timeout), func() []testutil.Proc { return markedProcesses(mark) }) {
		t.Logf("%s: killing leftover process %v", what, p)
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
	}
}

// markedProcesses lists the live processes, other than this one, whose
// environment holds mark.
func markedProcesses(mark string) []testutil.Proc {
	want := []byte("\x00" + mark + "\x00")
	var out []testutil.Proc
	for _, p := range testutil.Procs() {
		if p.State == 'Z' || p.State == 'X' || p.PID == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), want) {
			out = append(out, p)
		}
	}
	return out
}

// unsetInherited removes from tm's global environment, which new panes
// start with, the agent-steering variables of the test's environment that
// env does not set.
func unsetInherited(t testing.TB, tm *testutil.Tmux, env map[string]string) {
	t.Helper()
	var args []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := env[k]; set {
			continue
		}
		for _, p := range agentEnvPrefixes {
			if strings.HasPrefix(k, p) {
				args = append(args, "set-environment", "-g", "-u", k, ";")
				break
			}
		}
	}
	if len(args) == 0 {
		return
	}
	if _, err := tm.Run(args[:len(args)-1]...); err != nil {
		t.Fatalf("unset inherited agent variables: %v", err)
	}
}

// Screen returns the pane's visible screen.
func (a *Agent) Screen() string {
	a.T.Helper()
	return a.Tmux.Capture(a.Pane)
}

// WaitScreen waits up to ScreenTimeout for substr on the visible screen
// and returns the screen; on timeout the test fails showing the last one.
func (a *Agent) WaitScreen(substr string) string {
	a.T.Helper()
	return a.Tmux.WaitForScreen(a.T, a.Pane, substr, ScreenTimeout)
}

// Keys sends tmux key names ("Enter", "Escape", "1", "C-c") to the pane.
func (a *Agent) Keys(keys ...string) {
	a.T.Helper()
	a.Tmux.SendKeys(a.Pane, keys...)
}

// retryKeysAfter is how long PressUntilGone waits for its keys to work
// before sending them again.
const retryKeysAfter = 500 * time.Millisecond

// keysLookEvery is how often PressUntil and PressUntilGone look at the
// screen between presses: each look is a tmux client, and at 20 ms a
// press made 25 of them (testutil's pollInterval says why 50 ms).
const keysLookEvery = 50 * time.Millisecond

// PressUntilGone sends keys until substr has left the screen, waiting
// retryKeysAfter between tries, and fails the test after ScreenTimeout.
// Dialogs may drop keys for a moment after they appear (Claude Code's
// permission prompt ignores those of its first ~150 ms, so keys typed
// ahead cannot answer it); a key that landed is not sent again, since the
// dialog is gone by then.
func (a *Agent) PressUntilGone(substr string, keys ...string) {
	a.T.Helper()
	a.untilGone(substr, fmt.Sprint(keys), func() { a.Keys(keys...) })
}

// EscapeUntilGone is PressUntilGone for Escape, sent again only after
// escapeRetryAfter: Claude Code reads two Escapes close together as its
// double Escape and opens "Rewind" (CI: the first one landed, the busy
// line took over 500 ms to go under load, and the second opened Rewind).
func (a *Agent) EscapeUntilGone(substr string) {
	a.T.Helper()
	a.untilGoneEvery(substr, "[Escape]", escapeRetryAfter, func() { a.Keys("Escape") })
}

// escapeRetryAfter is longer than Claude Code's double-Escape window.
const escapeRetryAfter = 3 * time.Second

// PressUntil sends keys until substr is on the screen, waiting
// retryKeysAfter between tries, and fails the test after ScreenTimeout:
// moving a dialog's selection to an option, say.
func (a *Agent) PressUntil(substr string, keys ...string) {
	a.T.Helper()
	deadline := time.Now().Add(ScreenTimeout)
	for !strings.Contains(a.Screen(), substr) {
		if time.Now().After(deadline) {
			a.T.Fatalf("pane %s: %q not on screen %v after pressing %v:\n%s", a.Pane, substr, ScreenTimeout, keys, a.Screen())
		}
		a.Keys(keys...)
		for next := time.Now().Add(retryKeysAfter); time.Now().Before(next) && !strings.Contains(a.Screen(), substr); {
			time.Sleep(keysLookEvery)
		}
	}
}

// PressUntilGoneVia is PressUntilGone with the keys typed into the tmux
// client c (raw terminal input: "\r" is Enter), as a person at that
// terminal would; c must show the agent's pane.
func (a *Agent) PressUntilGoneVia(c *testutil.Client, substr, keys string) {
	a.T.Helper()
	a.untilGone(substr, fmt.Sprintf("%q on client %s", keys, c.TTY), func() { c.Type(a.T, keys) })
}

// untilGone calls press until substr has left the screen; see
// PressUntilGone.
func (a *Agent) untilGone(substr, what string, press func()) {
	a.T.Helper()
	a.untilGoneEvery(substr, what, retryKeysAfter, press)
}

func (a *Agent) untilGoneEvery(substr, what string, every time.Duration, press func()) {
	a.T.Helper()
	deadline := time.Now().Add(ScreenTimeout)
	for {
		press()
		next := time.Now().Add(every)
		for time.Now().Before(next) {
			out, err := a.Tmux.Run("capture-pane", "-p", "-J", "-t", a.Pane)
			if err == nil && !strings.Contains(out, substr) {
				return
			}
			time.Sleep(keysLookEvery)
		}
		if time.Now().After(deadline) {
			a.T.Fatalf("pane %s: %q still on screen %v after pressing %s:\n%s", a.Pane, substr, ScreenTimeout, what, a.Screen())
		}
	}
}

// Type types text into the agent and submits it. The text goes as one
// literal send-keys and Enter as a separate one once the text shows on the
// screen: a TUI reads a burst of characters as a paste and takes an Enter
// inside (or right after) it as a newline, not as submit. Text is one line
// short enough not to wrap in the agent's input box.
func (a *Agent) Type(text string) {
	a.T.Helper()
	a.typeWith(text, func() { a.Tmux.SendLiteral(a.Pane, text) }, func() { a.Keys("Enter") })
}

// TypeVia is Type with the keys typed into the tmux client c, as the
// person at that terminal would; c must show the agent's pane.
func (a *Agent) TypeVia(c *testutil.Client, text string) {
	a.T.Helper()
	a.typeWith(text, func() { c.Type(a.T, text) }, func() { c.Type(a.T, "\r") })
}

// typeWith sends text, waits for it to echo in the pane, then submits.
func (a *Agent) typeWith(text string, send, enter func()) {
	a.T.Helper()
	// Count, so an earlier copy of text on the screen (a previous prompt
	// in the transcript) does not pass for the echo.
	before := strings.Count(a.Screen(), text)
	send()
	testutil.WaitUntil(a.T, EchoTimeout, fmt.Sprintf("%q to echo in pane %s", text, a.Pane), func() bool {
		out, err := a.Tmux.Run("capture-pane", "-p", "-J", "-t", a.Pane)
		return err == nil && strings.Count(out, text) > before
	})
	enter()
}

// raceOptions is GORACE for the sup binaries the tests run: a -race build
// sleeps 1 s at every exit unless atexit_sleep_ms says otherwise, which
// adds up when tests poll `sup state`.
func raceOptions() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// SupCmd runs the sup binary with args in the agent's environment (its
// private runtime dir, so it sees this session) and returns its stdout.
func (a *Agent) SupCmd(args ...string) (string, error) {
	return a.SupCmdEnv(nil, args...)
}

// SupCmdEnv is SupCmd with extra (KEY=value) added last to the
// environment, overriding the rest.
func (a *Agent) SupCmdEnv(extra []string, args ...string) (string, error) {
	cmd := exec.Command(a.Sup, args...)
	cmd.Env = append(os.Environ(), "GORACE="+raceOptions())
	for k, v := range a.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, extra...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("sup %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// State returns the session's state, asked over its socket in the test
// process: the tests poll it (WaitOperatorIdle, every wait on an
// activity), and a `sup state` process per look was 633 processes of one
// run (issue 29). The verb's output is specified by cmd/sup's tests.
func (a *Agent) State() ipc.State {
	a.T.Helper()
	return ipctest.State(a.T, a.Socket())
}

// writeSandboxFile writes content to path, creating its directory.
func writeSandboxFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WaitOperatorIdle waits until the session no longer reports
// operator_busy (keys within the quiet window, or a draft): polled, not
// slept, so a trigger sent next is not deferred by keys the test typed.
func (a *Agent) WaitOperatorIdle() {
	a.T.Helper()
	testutil.WaitUntil(a.T, 30*time.Second, "operator_busy to clear", func() bool { return !a.State().OperatorBusy })
}
