package fakemodel

import (
	"encoding/json"
	"strings"
)

// openaiRequest is the part of a Responses API request body the stand-in
// reads.
type openaiRequest struct {
	Model string          `json:"model"`
	Input json.RawMessage `json:"input"` // a string, or a list of items
	Text  *struct {
		Format *struct {
			Type   string `json:"type"`
			Name   string `json:"name"`
			Schema *struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

// openaiItem is one input item: a message, a function call, a tool output.
type openaiItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or a list of parts
	Output  json.RawMessage `json:"output"`  // tool outputs: string, parts, or {content}
}

// items returns the input as a list; a bare string input is one user
// message.
func (q *openaiRequest) items() []openaiItem {
	var s string
	if json.Unmarshal(q.Input, &s) == nil {
		c, _ := json.Marshal(s)
		return []openaiItem{{Type: "message", Role: "user", Content: c}}
	}
	var items []openaiItem
	_ = json.Unmarshal(q.Input, &items)
	return items
}

// injectedPrefixes start the user-role messages Codex writes itself, not
// the person: the environment (cwd, shell, date, sandbox), AGENTS.md and
// other instructions, and notes about interrupted turns.
var injectedPrefixes = []string{
	"<environment_context>",
	"<user_instructions>",
	"# AGENTS.md instructions",
	"<INSTRUCTIONS>",
	"<turn_aborted>",
	"<user_shell_command>",
	"<skills_instructions>",
	"<permissions instructions>",
}

// userText returns the text of the newest user message that the person
// typed, skipping the ones Codex injects.
func (q *openaiRequest) userText() string {
	items := q.items()
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if it.Type != "message" && it.Type != "" || it.Role != "user" {
			continue
		}
		text := partsText(it.Content)
		if injected(text) {
			continue
		}
		return text
	}
	return ""
}

func injected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// toolResult returns the output of the newest input item if that item is a
// tool's output (function_call_output, or custom_tool_call_output for
// freeform tools). Codex sends the output right after its call, last in
// the input. See [withoutExecHeader] for what is left out.
func (q *openaiRequest) toolResult() (string, bool) {
	items := q.items()
	if len(items) == 0 {
		return "", false
	}
	last := items[len(items)-1]
	if last.Type != "function_call_output" && last.Type != "custom_tool_call_output" {
		return "", false
	}
	return withoutExecHeader(outputText(last.Output)), true
}

// execHeaderPrefixes start the bookkeeping lines that open exec_command's
// output ("Chunk ID: 365ca0", "Wall time: 0.0000 seconds", "Original token
// count: 0") before "Process exited with code N" and "Output:".
var execHeaderPrefixes = []string{"Chunk ID: ", "Wall time: ", "Original token count: "}

// withoutExecHeader drops those lines: they change from run to run, and
// the answer to a tool result quotes its first line, so that the answer
// reads "done: Process exited with code 0", the same every time.
func withoutExecHeader(out string) string {
	lines := strings.SplitAfter(out, "\n")
	keep := lines[:0]
	for _, l := range lines {
		header := false
		for _, p := range execHeaderPrefixes {
			header = header || strings.HasPrefix(l, p)
		}
		if !header {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// side reports whether the request is a side request rather than a turn.
// Codex's side requests (the thread title it generates after the first
// prompt) ask for structured output: text.format is a json_schema, which
// an interactive turn never sets.
func (q *openaiRequest) side() bool {
	return q.Text != nil && q.Text.Format != nil && q.Text.Format.Type == "json_schema"
}

// SideTitle is the thread title the stand-in gives a title request.
const SideTitle = "Stand-in title"

// sideAnswer is the JSON text that satisfies a side request's schema: each
// required property set to a string (SideTitle for "title").
func (q *openaiRequest) sideAnswer() string {
	out := map[string]string{}
	if f := q.Text.Format; f.Schema != nil {
		for _, name := range f.Schema.Required {
			out[name] = "stand-in " + name
		}
		if _, ok := f.Schema.Properties["title"]; ok {
			out["title"] = SideTitle
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// partsText joins the text of a message's content, a string or a list of
// parts (input_text, output_text).
func partsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// outputText is a tool output's text: a string, a list of parts, or an
// object with content.
func outputText(raw json.RawMessage) string {
	var obj struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
		return partsText(obj.Content)
	}
	return partsText(raw)
}
