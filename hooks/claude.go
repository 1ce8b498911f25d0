//go:build linux

package hooks

// claudeSpec is what sup installs for Claude Code, in settings.json:
// every event whose payload moves a session between busy, waiting and
// done (specs/testing.md, "Claude Code" / "Hooks"). Tool events carry the
// matcher "*" (all tools, as seen working with Claude Code 2.1.330); the
// others take no matcher, which matches everything.
var claudeSpec = jsonSpec{
	agent: Claude,
	events: []eventSpec{
		{name: "SessionStart"},
		{name: "UserPromptSubmit"},
		{name: "PreToolUse", matcher: "*"},
		{name: "PostToolUse", matcher: "*"},
		{name: "PermissionRequest", matcher: "*"},
		{name: "Notification"},
		// An MCP server asks the human (needs_confirmation, the question),
		// and auto mode denied a tool call (the turn goes on).
		{name: "Elicitation"},
		{name: "PermissionDenied", matcher: "*"},
		{name: "Stop"},
		// A turn ended by an API error (2.1.332+): the session waits on
		// the human, like a finished turn.
		{name: "StopFailure"},
		{name: "SessionEnd"},
	},
}
