//go:build linux

package agenttest

import (
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// Screen texts of Claude Code 2.1.330 (.agents/package.json pins it) that
// tests wait for. specs/testing.md ("Claude Code") shows the screens whole.
const (
	// ClaudeReady is the footer of the idle input box in permission mode
	// "default". While a turn runs the footer ends "esc to interrupt"
	// instead, and with a draft in the box it is "⏸ manual mode on" alone.
	ClaudeReady = "manual mode on · ? for shortcuts"
	// ClaudeBusy is the footer while a turn runs.
	ClaudeBusy = "esc to interrupt"
	// ClaudePermission is the question of the tool permission prompt;
	// "❯ 1. Yes" is preselected, so Enter (or "1") approves, "4" or Escape
	// declines. It ignores keys for ~150 ms after it appears: answer it
	// with Agent.PressUntilGone.
	ClaudePermission = "Do you want to proceed?"
	// ClaudeTrust is the trust dialog's question; "No, exit" is
	// preselected.
	ClaudeTrust = "Is this a project you created or one you trust?"
	// ClaudeKeyDialog is the API-key dialog's question; "No (recommended)"
	// is preselected.
	ClaudeKeyDialog = "Do you want to use this API key?"
	// ClaudeAnswerMark starts each assistant message in the transcript.
	ClaudeAnswerMark = "● "
)

// StartClaude starts real Claude Code under `sup start --profile claude`
// in a new pane of tm: it starts a model stand-in (closed when the test
// ends), makes a project directory (trusted unless WithoutTrust) and a
// sandbox (ClaudeSandbox), writes the session document there and runs sup.
// It returns at once; wait for ClaudeReady. Without claude installed it
// skips or fails as AgentBin does, before starting anything.
func StartClaude(t testing.TB, tm *testutil.Tmux, opts ...Option) *Agent {
	t.Helper()
	model, dir := prepareAgent(t, "claude")
	if !NewOptions(opts...).Untrusted {
		opts = append([]Option{WithTrust(dir)}, opts...)
	}
	env, home := ClaudeSandbox(t, model.URL, opts...)
	return StartUnderSup(t, tm, SupStart{Profile: "claude", Dir: dir, Home: home, Env: env, Model: model}, NewOptions(opts...))
}
