//go:build linux

package hooks

import (
	"strings"
	"testing"
)

func TestParseClaudePermissionRequest(t *testing.T) {
	p, err := Parse("claude", []byte(`{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PermissionRequest",
		"permission_mode":"default","tool_name":"Bash","tool_input":{"command":"touch made.txt","description":"make a file"},
		"permission_suggestions":[{"type":"addRules"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Agent != "claude" || p.Event != "PermissionRequest" || p.SessionID != "abc" || p.ToolName != "Bash" ||
		p.Command != "touch made.txt" || p.TranscriptPath != "/t.jsonl" {
		t.Fatalf("parsed %+v", p)
	}
}

func TestParseClaudeStopAndSessionStart(t *testing.T) {
	p, _ := Parse("claude", []byte(`{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"All done.","stop_hook_active":false}`))
	if p.Event != "Stop" || p.Message != "All done." {
		t.Fatalf("stop: %+v", p)
	}
	p, _ = Parse("claude", []byte(`{"session_id":"s2","hook_event_name":"SessionStart","source":"resume","model":"x"}`))
	if p.Source != "resume" || p.SessionID != "s2" {
		t.Fatalf("session start: %+v", p)
	}
}

func TestParseCodexNotify(t *testing.T) {
	p, err := Parse("codex", []byte(`{"type":"agent-turn-complete","thread-id":"th1","turn-id":"t","cwd":"/p","client":"codex-tui",
		"input-messages":["RUN: ls"],"last-assistant-message":"done: ok"}`))
	if err != nil || p.Event != "agent-turn-complete" || p.SessionID != "th1" || p.Message != "done: ok" {
		t.Fatalf("notify: %+v %v", p, err)
	}
	if _, err := Parse("codex", []byte(`{"type":"agent-turn-complete","thread-id":"side","input-messages":["Generate a concise, single-line task title for this"]}`)); err == nil {
		t.Fatal("the title side thread's notify must be ignored")
	}
}

// The payloads below are Gemini CLI 0.61.0's, as its hooks got them.
func TestParseGemini(t *testing.T) {
	const base = `"session_id":"194c09ae-36af-4267-bae9-d5ba31d3f26c","transcript_path":"/h/.gemini/tmp/proj/chats/session-2026-11-22T06-44-194c09ae.jsonl","cwd":"/p","timestamp":"2026-11-22T06:44:37.022Z"`
	p, err := Parse("gemini", []byte(`{`+base+`,"hook_event_name":"Notification","notification_type":"ToolPermission",
		"message":"Tool Confirm Shell Command requires execution","details":{"type":"exec","title":"Confirm Shell Command","command":"touch m2.txt","rootCommand":"touch"}}`))
	if err != nil || p.Event != "Notification" || p.NotificationType != "ToolPermission" || p.ToolName != "Shell" || p.Command != "touch m2.txt" ||
		p.SessionID != "194c09ae-36af-4267-bae9-d5ba31d3f26c" || p.Message != "Tool Confirm Shell Command requires execution" {
		t.Fatalf("notification: %+v %v", p, err)
	}
	p, _ = Parse("gemini", []byte(`{`+base+`,"hook_event_name":"Notification","notification_type":"ToolPermission","message":"m",
		"details":{"type":"edit","title":"Confirm Edit","fileName":"a.go","filePath":"/p/a.go","fileDiff":"…"}}`))
	if p.ToolName != "Edit" || p.Command != "/p/a.go" {
		t.Fatalf("edit notification: %+v", p)
	}
	p, _ = Parse("gemini", []byte(`{`+base+`,"hook_event_name":"Notification","notification_type":"ToolPermission","message":"m",
		"details":{"type":"mcp","title":"Confirm MCP Tool","serverName":"gh","toolName":"list","toolDisplayName":"List issues"}}`))
	if p.ToolName != "gh" || p.Command != "List issues" {
		t.Fatalf("mcp notification: %+v", p)
	}
	p, _ = Parse("gemini", []byte(`{`+base+`,"hook_event_name":"BeforeTool","tool_name":"run_shell_command",
		"tool_input":{"command":"touch m2.txt","description":"d"}}`))
	if p.ToolName != "run_shell_command" || p.Command != "touch m2.txt" {
		t.Fatalf("before tool: %+v", p)
	}
	// A turn that ran a tool: one line per model call, the last is the
	// final answer's.
	p, _ = Parse("gemini", []byte(`{`+base+`,"hook_event_name":"AfterAgent","prompt":"RUN: touch m2.txt",
		"prompt_response":"running it\ndone: Output: (empty)\n","stop_hook_active":false}`))
	if p.Event != "AfterAgent" || p.Message != "done: Output: (empty)" {
		t.Fatalf("after agent: %+v", p)
	}
	p, _ = Parse("gemini", []byte(`{`+base+`,"hook_event_name":"SessionStart","source":"resume"}`))
	if p.Source != "resume" || p.SessionID == "" || p.TranscriptPath == "" {
		t.Fatalf("session start: %+v", p)
	}
}

func TestParseBadInput(t *testing.T) {
	for _, in := range []string{"", "garbage", "[1,2]", `{"no":"event"}`, "\x00\xff"} {
		if _, err := Parse("claude", []byte(in)); err == nil {
			t.Fatalf("Parse(%q): want an error", in)
		}
	}
	huge := `{"hook_event_name":"Stop","last_assistant_message":"` + strings.Repeat("x", 1<<20) + `"}`
	p, err := Parse("claude", []byte(huge))
	if err != nil || len(p.Message) != maxField {
		t.Fatalf("huge payload: %d bytes, %v", len(p.Message), err)
	}
}

// The submitted prompt travels to the supervisor, bounded: a trigger's ack
// looks for its id in it.
func TestParseUserPromptSubmit(t *testing.T) {
	p, err := Parse("claude", []byte(`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"[BRIDGE_TRIGGER id=t-1 thread=x]\nhi"}`))
	if err != nil || p.Event != "UserPromptSubmit" || p.Prompt != "[BRIDGE_TRIGGER id=t-1 thread=x]\nhi" {
		t.Fatalf("parsed %+v (%v)", p, err)
	}
	p, _ = Parse("claude", []byte(`{"hook_event_name":"UserPromptSubmit","prompt":"`+strings.Repeat("x", 10000)+`"}`))
	if len(p.Prompt) != maxField {
		t.Fatalf("prompt of 10000 bytes kept %d, want %d", len(p.Prompt), maxField)
	}
}

// A long last message keeps its end (where a question is), from a line
// start; an Elicitation names its MCP server; a PermissionDenied its tool
// and command. (Payload fields as Claude Code 2.1.330's bundle builds
// them: hook_event_name "Elicitation", mcp_server_name, message, mode,
// url, elicitation_id, requested_schema.)
func TestParseQuestionPayloads(t *testing.T) {
	long := strings.Repeat("a line of the summary\n", 400) + "Should I delete them?"
	p, err := Parse("claude", []byte(`{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"`+strings.ReplaceAll(long, "\n", `\n`)+`"}`))
	if err != nil || len(p.Message) > maxField || !strings.HasSuffix(p.Message, "\nShould I delete them?") || !strings.HasPrefix(p.Message, "a line") {
		t.Fatalf("long Stop: %d bytes, %v, ends %q", len(p.Message), err, p.Message[max(len(p.Message)-40, 0):])
	}
	p, _ = Parse("codex", []byte(`{"type":"agent-turn-complete","thread-id":"t","last-assistant-message":"`+strings.Repeat("x", 5000)+`?"}`))
	if !strings.HasSuffix(p.Message, "x?") || len(p.Message) != maxField {
		t.Fatalf("long notify: %d bytes", len(p.Message))
	}
	p, _ = Parse("claude", []byte(`{"session_id":"s","hook_event_name":"Elicitation","mcp_server_name":"travel","message":"Which seat?","mode":"form","elicitation_id":"e1","requested_schema":{"type":"object"}}`))
	if p.Event != "Elicitation" || p.ToolName != "travel" || p.Message != "Which seat?" {
		t.Fatalf("Elicitation: %+v", p)
	}
	p, _ = Parse("claude", []byte(`{"session_id":"s","hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{"command":"rm -rf x"},"tool_use_id":"u","reason":"destructive"}`))
	if p.Event != "PermissionDenied" || p.ToolName != "Bash" || p.Command != "rm -rf x" {
		t.Fatalf("PermissionDenied: %+v", p)
	}
}

// TestParseKeepsWholeCommand: a permission's command is what the human
// approves: a 5 KB one arrives whole (other fields stay capped at
// maxField), one above ipc.MaxPromptDetail cut with a marker.
func TestParseKeepsWholeCommand(t *testing.T) {
	big := "echo " + strings.Repeat("x", 5000) + "\ncurl x | sh"
	p, err := Parse("claude", []byte(`{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"`+strings.ReplaceAll(big, "\n", `\n`)+`"}}`))
	if err != nil || p.Command != big {
		t.Fatalf("a 5 KB command: %d bytes, %v", len(p.Command), err)
	}
	p, _ = Parse("claude", []byte(`{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"`+strings.Repeat("y", 70_000)+`"}}`))
	if len(p.Command) != 64<<10 || !strings.HasSuffix(p.Command, "… [cut: 70000 bytes in all, 65536 shown]") {
		t.Fatalf("a 70 KB command: %d bytes", len(p.Command))
	}
}
