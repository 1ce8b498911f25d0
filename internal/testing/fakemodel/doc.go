// Package fakemodel is a loopback stand-in for the model APIs the real agent
// CLIs talk to: the Anthropic Messages API (Claude Code), the OpenAI
// Responses API (Codex) and the Gemini API (Gemini CLI, generativelanguage
// v1beta streamGenerateContent), plus the OpenAI chat-completions API sup's
// own model reader calls (chat.go). A test scripts what the model does next — answer,
// stream slowly, call a tool, fail, hang — and reads back every request the
// agent sent. It binds 127.0.0.1 on an ephemeral port only.
//
// What the model does for a request is decided, in order, by: a turn the
// test queued with Queue; a tool result in the newest message (the model
// answers "done: <first line of the result>"); a rule keyed on the newest
// user text:
//
//	RUN: <command>   call the shell tool with command (Claude: Bash;
//	                 Codex: exec_command with sandbox_permissions
//	                 require_escalated, which forces an approval;
//	                 Gemini: run_shell_command, which asks first)
//	WRITE: <path> <text>  call Claude's Write tool: create path (absolute)
//	                 holding text (Claude only: its file permission prompt)
//	MCP: <tool>      call the named tool with no input (Claude only: an
//	                 MCP server's tool, mcp__<server>__<tool>)
//	SLOW <n>         stream an answer slowly over n seconds
//	FAIL <status>    answer with that HTTP status and an API error body
//	HANG             never answer (until the agent gives up)
//	SAY <text>       answer with text
//	anything else    answer "ok: <the user text>"
//
// Side requests (title generation, token counting, quota probes) are
// answered without consuming queued turns, so they never break a script.
package fakemodel
