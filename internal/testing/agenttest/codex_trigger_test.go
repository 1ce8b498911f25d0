//go:build linux

package agenttest

import (
	"testing"
)

// TestCodexTrigger: a multi-line trigger reaches real Codex as ONE user
// message holding every line of the envelope, and is acknowledged (Codex
// has no prompt hook here: the busy its turn shows on the screen acks).
func TestCodexTrigger(t *testing.T) {
	t.Parallel()
	a := startReadyCodex(t, WithSupConfig("activity: {quiet_window: 1s}\ntrigger: {ack_timeout: 20s}\n"))
	triggerOneTurn(t, a, "cx-1", CodexAnswerMark+"ok: ", CodexPrompt)
}
