package ipc

import (
	"slices"
	"strings"
)

// Agents are the agents whose hooks sup understands, the valid values of
// HookParams.Agent: the one list of agent names, which the hook installer,
// the supervisor and the CLI all read.
var Agents = []string{"claude", "codex", "gemini"}

// KnownAgent reports whether name is one of Agents.
func KnownAgent(name string) bool { return slices.Contains(Agents, name) }

// AgentChoices lists Agents for a message: "claude, codex or gemini".
func AgentChoices() string {
	return strings.Join(Agents[:len(Agents)-1], ", ") + " or " + Agents[len(Agents)-1]
}
