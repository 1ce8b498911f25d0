//go:build linux

package doctor

// TestedVersions are the agent CLI versions sup's tests drive, pinned in
// .agents/package.json (TestPinsMatchPackageJSON keeps them equal).
var TestedVersions = map[string]string{
	"claude": "2.1.330",
	"codex":  "0.169.0",
	"gemini": "0.61.0",
}

// npmPackages are the agents' npm packages, for the fix line.
var npmPackages = map[string]string{
	"claude": "@anthropic-ai/claude-code",
	"codex":  "@openai/codex",
	"gemini": "@google/gemini-cli",
}
