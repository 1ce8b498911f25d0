//go:build linux

package ipc

import "testing"

func TestAgents(t *testing.T) {
	if got := AgentChoices(); got != "claude, codex or gemini" {
		t.Errorf("AgentChoices = %q", got)
	}
	if !KnownAgent("codex") || KnownAgent("Codex") || KnownAgent("") {
		t.Error("KnownAgent: want exactly the names in Agents")
	}
}
