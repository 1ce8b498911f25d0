//go:build linux

package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sup-tmux/sup/ipc"
)

// maxField bounds every text field sent to the supervisor: summaries are
// one line of a list, and a payload may carry a whole file's diff.
const maxField = 4 << 10

// Parse extracts what the supervisor needs from an agent's hook payload:
// Claude Code and Gemini CLI hooks (and Codex's Claude-style hooks.json)
// send JSON on stdin with hook_event_name; Codex's notify passes JSON as its
// last argument with type agent-turn-complete.
func Parse(agent string, data []byte) (ipc.HookParams, error) {
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return ipc.HookParams{}, fmt.Errorf("hook payload is not a JSON object: %w", err)
	}
	p := ipc.HookParams{Agent: agent}
	if typ, _ := raw["type"].(string); typ != "" && raw["hook_event_name"] == nil {
		// Codex notify.
		p.Agent = "codex"
		p.Event = typ
		p.SessionID = str(raw["thread-id"])
		p.Message = tail(raw["last-assistant-message"])
		if titleThread(raw["input-messages"]) {
			return ipc.HookParams{}, fmt.Errorf("codex notify for its title side thread: ignored")
		}
		return p, nil
	}
	p.Event = str(raw["hook_event_name"])
	if p.Event == "" {
		return ipc.HookParams{}, fmt.Errorf("hook payload has neither hook_event_name nor type")
	}
	p.SessionID = str(raw["session_id"])
	p.TranscriptPath = str(raw["transcript_path"])
	p.Source = str(raw["source"])
	p.ToolName = str(raw["tool_name"])
	p.NotificationType = str(raw["notification_type"])
	p.Prompt = str(raw["prompt"])
	p.Message = tail(raw["last_assistant_message"])
	if p.Event == "Elicitation" && p.ToolName == "" {
		p.ToolName = str(raw["mcp_server_name"]) // the server that asks
	}
	if p.Message == "" {
		p.Message = geminiLastAnswer(raw["prompt_response"])
	}
	if p.Message == "" {
		p.Message = str(raw["message"])
	}
	if p.Event == "StopFailure" {
		// Claude Code: the turn ended on an API error; its details say
		// which, and are the summary the human reads in the queue.
		p.Message = strings.TrimSpace(strings.Join([]string{str(raw["error_details"]), p.Message, str(raw["error"])}, "\n"))
	}
	if in, ok := raw["tool_input"].(map[string]any); ok {
		// The command whole, not maxField: it is what the human
		// approves (ipc.State.PromptDetail).
		p.Command = detail(in["command"])
		if p.Command == "" {
			p.Command = str(in["file_path"])
		}
	}
	if details, ok := raw["details"].(map[string]any); ok && p.ToolName == "" && p.Command == "" {
		p.ToolName, p.Command = geminiPermission(details)
	}
	return p, nil
}

// geminiLastAnswer is the end of a Gemini CLI AfterAgent prompt_response:
// Gemini CLI 0.61 joins the texts of every model call of the turn with a
// newline ("running it\ndone: …" for a turn that ran a tool), so the last
// non-blank line is from the turn's final answer.
func geminiLastAnswer(v any) string {
	s, _ := v.(string)
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return str(strings.TrimSpace(s))
}

// geminiToolNames are the tool names Gemini CLI's confirmation dialogs
// show, by the dialog's type (the Notification hook's details.type).
var geminiToolNames = map[string]string{"exec": "Shell", "edit": "Edit", "info": "WebFetch"}

// geminiPermission reads a Gemini CLI Notification (ToolPermission)
// payload's details, which name neither tool_name nor tool_input: the
// tool as its dialog shows it and what it acts on (the command, the file,
// the MCP tool, the URL).
func geminiPermission(d map[string]any) (tool, command string) {
	typ := str(d["type"])
	tool = geminiToolNames[typ]
	switch typ {
	case "exec":
		command = detail(d["command"])
	case "edit":
		command = str(d["filePath"])
	case "mcp":
		tool = str(d["serverName"])
		command = str(d["toolDisplayName"])
		if command == "" {
			command = str(d["toolName"])
		}
	case "info":
		if urls, _ := d["urls"].([]any); len(urls) > 0 {
			command = str(urls[0])
		}
	}
	if tool == "" {
		tool = str(d["title"])
	}
	return tool, command
}

// titleThread recognises the side conversation Codex starts to name a
// thread: its notify fires first, with another thread id, and must not be
// taken for the agent's turn.
func titleThread(msgs any) bool {
	list, _ := msgs.([]any)
	for _, m := range list {
		if s, _ := m.(string); strings.HasPrefix(s, "Generate a concise, single-line task title") {
			return true
		}
	}
	return false
}

// tail is str for a turn's last message: its end, where a question to the
// human is (specs/detection.md, "Questions"), cut after a line break so the
// summary's first line is whole.
func tail(v any) string {
	s, _ := v.(string)
	if len(s) > maxField {
		s = s[len(s)-maxField:]
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		}
	}
	return strings.ToValidUTF8(s, string(utf8.RuneError))
}

// detail is str for a command the human is asked to approve: bounded by
// ipc.MaxPromptDetail (and marked when cut), not maxField.
func detail(v any) string {
	s, _ := v.(string)
	return strings.ToValidUTF8(ipc.BoundDetail(s), string(utf8.RuneError))
}

// str returns v as a bounded, valid UTF-8 string ("" for non-strings).
func str(v any) string {
	s, _ := v.(string)
	if len(s) > maxField {
		s = s[:maxField]
	}
	return strings.ToValidUTF8(s, string(utf8.RuneError))
}
