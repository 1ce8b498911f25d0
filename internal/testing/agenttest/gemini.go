//go:build linux

package agenttest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// Screen texts of Gemini CLI 0.61.0 (.agents/package.json pins it) that
// tests wait for. specs/testing.md ("Gemini CLI") shows the screens whole.
const (
	// GeminiPrompt is the empty input box: its prompt and placeholder.
	// It shows before Gemini CLI has initialised ("ℹ Initializing...
	// Prompts will be queued." above it until then); wait for
	// GeminiBanner too before typing, or the prompt is queued.
	GeminiPrompt = ">   Type your message or @path/to/file"
	// GeminiBanner is the banner's auth line, shown once initialised.
	GeminiBanner = "Authenticated with gemini-api-key"
	// GeminiBusy ends the spinner line above the input box while a turn
	// runs: "⠏ <phrase> (esc to cancel, 2s)".
	GeminiBusy = "esc to cancel"
	// GeminiConfirm asks about a shell command, in a box that replaces
	// the input box; "● 1. Allow once" is preselected, so Enter approves
	// and Escape ("3. No, suggest changes (esc)") declines.
	GeminiConfirm = "Allow execution of [Shell]?"
	// GeminiTrust is the folder trust dialog's question.
	GeminiTrust = "Do you trust the files in this folder?"
	// GeminiAnswerMark starts each model message in the transcript.
	GeminiAnswerMark = "✦ "
)

// GeminiModel is the model the sandbox pins (model.name), so Gemini CLI
// sends every turn to it and never asks a router model first.
const GeminiModel = "gemini-2.5-flash"

// GeminiAPIKey is the fake API key (GEMINI_API_KEY); the stand-in ignores
// it.
const GeminiAPIKey = "gemini-sup-tests-fake-key-not-a-secret"

// GeminiSandbox prepares a private HOME (also GEMINI_CLI_HOME) for Gemini
// CLI talking to the model stand-in at modelURL, with projectDir trusted
// (unless WithoutTrust) besides the WithTrust directories, and returns the
// environment to run it with: HOME, GEMINI_CLI_HOME, GEMINI_API_KEY,
// GOOGLE_GEMINI_BASE_URL, PATH with a directory holding `gemini` first,
// then opts' Env. ~/.gemini/settings.json is geminiSettings;
// ~/.gemini/trustedFolders.json trusts the
// directories. It skips or fails like AgentBin when gemini is not
// installed.
func GeminiSandbox(t testing.TB, modelURL, projectDir string, opts ...Option) map[string]string {
	t.Helper()
	o := NewOptions(opts...)
	script := AgentBin(t, "gemini")
	home := t.TempDir()
	trusted := map[string]any{}
	dirs := append([]string(nil), o.Trust...)
	if !o.Untrusted {
		dirs = append(dirs, projectDir)
	}
	for _, dir := range dirs {
		trusted[claudeProjectKey(dir)] = "TRUST_FOLDER"
	}
	settings := geminiSettings()
	if o.FirstRun {
		// A new user's: the API key chosen (and the offline switches),
		// no folder trusted, no nudge seen, no warning turned off.
		delete(settings, "ide")
		delete(settings, "ui")
	} else {
		writeSandboxJSON(t, filepath.Join(home, ".gemini", "trustedFolders.json"), trusted)
	}
	writeSandboxJSON(t, filepath.Join(home, ".gemini", "settings.json"), settings)
	// `gemini` in PATH, as npm links it: sup's gemini profile runs it by
	// that name; the script's `#!/usr/bin/env node` runs it.
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(script, filepath.Join(bin, "gemini")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"HOME":                   home,
		"GEMINI_CLI_HOME":        home,
		"GEMINI_API_KEY":         GeminiAPIKey,
		"GOOGLE_GEMINI_BASE_URL": modelURL,
		"PATH":                   bin + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	for k, v := range o.Env {
		env[k] = v
	}
	return env
}

// geminiSettings is a sandbox's ~/.gemini/settings.json: API-key auth (no
// auth dialog), the model pinned, and the switches that keep Gemini CLI
// offline and its first screen plain. Folder trust stays on (the trust
// dialog is real; trustedFolders.json answers it).
func geminiSettings() map[string]any {
	return map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"model":    map[string]any{"name": GeminiModel},
		// No update check, no update notice.
		"general": map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		// No usage statistics (Clearcut) and no telemetry export.
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		// No IDE connection, no "connect to your IDE" nudge.
		"ide": map[string]any{"enabled": false, "hasSeenNudge": true},
		// No "True color (24-bit) support not detected" warning under tmux.
		"ui": map[string]any{"showCompatibilityWarnings": false},
	}
}

// StartGemini starts real Gemini CLI under `sup start --profile gemini` in
// a new pane of tm: it starts a model stand-in (closed when the test
// ends), makes a project directory (trusted unless WithoutTrust) and a
// sandbox (GeminiSandbox), writes the session document there and runs
// sup. It returns at once; wait with WaitGeminiReady. Without gemini
// installed it skips or fails as AgentBin does, before starting anything.
func StartGemini(t testing.TB, tm *testutil.Tmux, opts ...Option) *Agent {
	t.Helper()
	model, dir := prepareAgent(t, "gemini")
	env := GeminiSandbox(t, model.URL, dir, opts...)
	return StartUnderSup(t, tm, SupStart{Profile: "gemini", Dir: dir, Home: env["HOME"], Env: env, Model: model}, NewOptions(opts...))
}

// GeminiStartTimeout bounds a Gemini CLI start: under CI's parallel load
// one took 43 s from spawn to its prompt, and its SessionStart hook came
// after that (the CI run of 2026-11-29, TestGeminiHooksDriveState).
const GeminiStartTimeout = 2 * ScreenTimeout

// WaitGeminiReady waits until Gemini CLI has initialised and its input
// box is empty: GeminiPrompt on screen without "Initializing", and
// GeminiBanner too — or, the banner gone, the prompt alone for
// geminiSettle: on a loaded machine Gemini CLI once cleared its screen
// after initialising and redrew only the input area (the CI run of
// 2026-11-26, in what is now TestGeminiWithoutHooks).
func (a *Agent) WaitGeminiReady() {
	a.T.Helper()
	var since time.Time
	a.Tmux.WaitScreenFunc(a.T, a.Pane, GeminiStartTimeout, "Gemini CLI initialised at its empty prompt", func(s string) bool {
		if !strings.Contains(s, GeminiPrompt) || strings.Contains(s, geminiInitializing) {
			since = time.Time{}
			return false
		}
		if strings.Contains(s, GeminiBanner) {
			return true
		}
		if since.IsZero() {
			since = time.Now()
		}
		return time.Since(since) >= geminiSettle
	})
}

// GeminiRelaunching reports whether s shows Gemini CLI 0.61 relaunching
// itself after the trust answer: the relaunched process prints a
// console.debug line ("[SessionSummary] No session files found") straight
// to the terminal as it starts; it lands at the old screen's cursor, in
// the input box, and stays there until the new process draws its own
// screen (seconds, under load: seen in CI). The old prompt is not the
// new one: a key typed now is lost with the old process.
func GeminiRelaunching(s string) bool { return geminiStrayPrompt.MatchString(s) }

// geminiStrayPrompt: the input box's row holding text, then at most one
// blank row, then the footer.
var geminiStrayPrompt = regexp.MustCompile(`(?m)^ > \[SessionSummary\].*\n(?:\s*\n)? workspace \(/directory\)`)

// geminiInitializing shows above the input box until Gemini CLI has
// initialised ("ℹ Initializing... Prompts will be queued.").
const geminiInitializing = "Initializing..."

// geminiSettle is how long the prompt must show, without the banner and
// without geminiInitializing, to count as initialised.
const geminiSettle = 2 * time.Second
