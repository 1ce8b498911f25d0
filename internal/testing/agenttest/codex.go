//go:build linux

package agenttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// Screen texts of Codex 0.169 (.agents/package.json pins it) that tests
// wait for. specs/testing.md ("Codex") shows the screens whole.
const (
	// CodexPrompt is the empty input line: the prompt glyph and the
	// placeholder. It shows while Codex still loads (the header then says
	// "loading"); wait for CodexLoaded too before typing.
	CodexPrompt = "› Ask Codex to do anything"
	// CodexLoaded is the start of the status line below the input box,
	// "<model> <reasoning effort> · <cwd>[ · <thread title>]", which
	// appears once Codex has loaded and stays during turns.
	CodexLoaded = CodexModel + " default · "
	// CodexBusy ends the working line while a turn runs:
	// "• Working (2s • esc to interrupt)", the bullet blinking • and ◦.
	CodexBusy = "esc to interrupt"
	// CodexApproval heads the approval prompt for a command; "› 1. Yes,
	// proceed (y)" is preselected, so y or Enter approves and Escape
	// declines.
	CodexApproval = "Would you like to run the following command?"
	// CodexTrust is the trust screen's question, shown for an untrusted
	// version-controlled folder; "› 1. Trust and continue" is preselected.
	CodexTrust = "Trust this folder?"
	// CodexAnswerMark starts each assistant message in the transcript.
	CodexAnswerMark = "• "
)

// CodexModel is the model name the sandbox configures; the stand-in
// answers whatever the name. Codex warns (under "⚠ 1 warning · f2 to
// view") that it has no metadata for it, which is harmless.
const CodexModel = "fake-model"

// CodexKeyEnv names the variable holding the fake API key (env_key of the
// sandbox's provider). Its CODEX_ prefix is on sup's allow-list.
const CodexKeyEnv = "CODEX_FAKEMODEL_KEY"

// CodexAPIKey is the fake API key; the stand-in ignores it.
const CodexAPIKey = "sk-codex-sup-tests-fake-key-not-a-secret"

// CodexSandbox prepares a private HOME and CODEX_HOME for Codex talking to
// the model stand-in at modelURL, with projectDir trusted (unless
// WithoutTrust) besides the WithTrust directories, and returns the
// environment to run it with: HOME, CODEX_HOME, the fake key, PATH with
// the codex binary first, then opts' Env. See codexConfig for what
// $CODEX_HOME/config.toml holds. It skips or fails like AgentBin when
// codex is not installed.
func CodexSandbox(t testing.TB, modelURL, projectDir string, opts ...Option) map[string]string {
	t.Helper()
	o := NewOptions(opts...)
	bin := AgentBin(t, "codex")
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	trusted := append([]string(nil), o.Trust...)
	if !o.Untrusted {
		trusted = append([]string{projectDir}, trusted...)
	}
	for i, dir := range trusted {
		// Codex keys projects by their real path.
		trusted[i] = claudeProjectKey(dir)
	}
	if o.FirstRun {
		// A new user's: no trusted folder, and the project is a git
		// repository, as most are (Codex asks about trust only there).
		trusted = nil
		if out, err := exec.Command("git", "init", "-q", projectDir).CombinedOutput(); err != nil {
			t.Fatalf("git init %s: %v: %s", projectDir, err, out)
		}
	}
	writeSandboxFile(t, filepath.Join(codexHome, "config.toml"), codexConfig(modelURL, trusted, ""))
	env := map[string]string{
		"HOME":       home,
		"CODEX_HOME": codexHome,
		CodexKeyEnv:  CodexAPIKey,
		"PATH":       filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	for k, v := range o.Env {
		env[k] = v
	}
	return env
}

// codexConfig is a sandbox's config.toml: the stand-in as the model
// provider, approvals on request, the trusted projects, and the switches
// that keep Codex offline, quiet and inside the test's processes. extra
// is appended as is (tables only: root keys must come before the first
// table). Codex itself adds [tui] keys (screen_reader_detection_done,
// model_availability_nux) at its first start.
func codexConfig(modelURL string, trusted []string, extra string) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("# Written by internal/testing/agenttest for one test.")
	line("model = %s", strconv.Quote(CodexModel))
	line(`model_provider = "fake"`)
	// on-request: a command asking to run outside the sandbox (the
	// stand-in's RUN rule) raises the real approval prompt.
	line(`approval_policy = "on-request"`)
	line(`sandbox_mode = "workspace-write"`)
	// Offline: no version probe at start.
	line("check_for_update_on_startup = false")
	line("")
	line("[model_providers.fake]")
	line(`name = "fakemodel"`)
	line("base_url = %s", strconv.Quote(modelURL+"/v1"))
	line(`wire_api = "responses"`)
	line("env_key = %s", strconv.Quote(CodexKeyEnv))
	// No retries: a scripted failure shows at once instead of after five
	// rounds of "Reconnecting... n/5" with backoff, each spending a turn.
	line("request_max_retries = 0")
	line("stream_max_retries = 0")
	for _, dir := range trusted {
		// No "Trust this folder?" screen there.
		line("")
		line("[projects.%s]", strconv.Quote(dir))
		line(`trust_level = "trusted"`)
	}
	line("")
	// Without this Codex starts a background app-server daemon in a
	// session of its own, which outlives the TUI and sup's process group,
	// after copying its 400 MB binary into CODEX_HOME.
	line("[features]")
	line("daemon_auto_start = false")
	line("")
	// Offline and quiet: no analytics, feedback uploads or telemetry.
	line("[analytics]")
	line("enabled = false")
	line("")
	line("[feedback]")
	line("enabled = false")
	line("")
	line("[otel]")
	line(`exporter = "none"`)
	if extra != "" {
		line("")
		line("%s", extra)
	}
	return b.String()
}

// StartCodex starts real Codex under `sup start --profile codex` in a new
// pane of tm: it starts a model stand-in (closed when the test ends),
// makes a project directory (trusted unless WithoutTrust) and a sandbox
// (CodexSandbox), writes the session document there and runs sup. It
// returns at once; wait with WaitCodexReady. When the test ends it closes
// the pane and kills whatever Codex left (see stopCodex). Without codex
// installed it skips or fails as AgentBin does, before starting anything.
func StartCodex(t testing.TB, tm *testutil.Tmux, opts ...Option) *Agent {
	t.Helper()
	model, dir := prepareAgent(t, "codex")
	env := CodexSandbox(t, model.URL, dir, opts...)
	a := StartUnderSup(t, tm, SupStart{Profile: "codex", Dir: dir, Home: env["HOME"], Env: env, Model: model}, NewOptions(opts...))
	// Registered after tm's cleanup, so it runs before it.
	t.Cleanup(func() { stopCodex(t, a, env["CODEX_HOME"]) })
	return a
}

// WaitCodexReady waits until Codex has loaded and its input line is
// empty: CodexPrompt and CodexLoaded on screen.
func (a *Agent) WaitCodexReady() {
	a.T.Helper()
	a.WaitScreen(CodexPrompt)
	a.WaitScreen(CodexLoaded)
}

// stopCodex ends sup and Codex at the end of a test: closing the pane
// hangs up sup, which ends Codex's process group; then every process
// still carrying the sandbox's CODEX_HOME in its environment (a helper
// Codex started in a session of its own, say) is killed. On failure it
// first logs the screen and the model's requests, which closing the pane
// would lose.
func stopCodex(t testing.TB, a *Agent, codexHome string) {
	if t.Failed() {
		if out, err := a.Tmux.Run("capture-pane", "-p", "-J", "-t", a.Pane); err == nil {
			t.Logf("codex pane %s at cleanup:\n%s", a.Pane, out)
		}
		for _, r := range a.Model.Requests() {
			t.Logf("model request: %s %s side=%v user=%q result=%v turn=%+v", r.Method, r.Path, r.Side, r.UserText, r.HasResult, r.Turn)
		}
	}
	_, _ = a.Tmux.Run("kill-pane", "-t", a.Pane)
	killMarked(t, "codex cleanup", "CODEX_HOME="+codexHome, codexStopTimeout)
}

// codexStopTimeout covers sup's stop grace (5 s) and a little more.
const codexStopTimeout = 8 * time.Second
