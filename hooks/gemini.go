//go:build linux

package hooks

// geminiSpec is what sup installs for Gemini CLI, in settings.json. Gemini
// CLI's hooks take Claude Code's layout under its own event names:
// BeforeAgent is a submitted prompt, AfterAgent a finished turn,
// Notification (type ToolPermission) a permission prompt. No matcher
// matches every tool and every source. Each entry is named "sup", so
// `/hooks disable sup` in Gemini CLI turns them off, and Gemini CLI runs an
// entry found in both the user and the project settings once.
//
// Checked against Gemini CLI 0.61.0 (realagent_test.go, and
// internal/testing/agenttest's gemini hooks test): every event here fires, with
// the payloads specs/testing.md ("Gemini CLI") shows.
var geminiSpec = jsonSpec{
	agent: Gemini,
	name:  "sup",
	events: []eventSpec{
		{name: "SessionStart"},
		{name: "BeforeAgent"},
		{name: "BeforeTool"},
		{name: "AfterTool"},
		{name: "Notification"},
		{name: "AfterAgent"},
		{name: "SessionEnd"},
	},
}
