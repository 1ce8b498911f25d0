package fakemodel

import (
	"encoding/json"
	"fmt"
	"strings"
)

// anthropicRequest is the part of a Messages API request body the stand-in
// reads. Claude Code sends much more (system prompt blocks, tool schemas,
// thinking and context-management settings); it is kept in Request.Body.
type anthropicRequest struct {
	Model    string             `json:"model"`
	Messages []anthropicMessage `json:"messages"`
	Tools    []json.RawMessage  `json:"tools"`
	Stream   bool               `json:"stream"`
	// OutputConfig.Format asks for structured output; Claude Code's title
	// request sets a json_schema with a "title" property.
	OutputConfig struct {
		Format *struct {
			Type   string `json:"type"`
			Schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"schema"`
		} `json:"format"`
	} `json:"output_config"`
}

// anthropicMessage is one turn of the conversation. Claude Code also puts
// role "system" messages between turns (environment, deferred tools).
type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or content blocks
}

// anthropicBlock is one content block; only the fields the stand-in reads.
type anthropicBlock struct {
	Type    string          `json:"type"` // text, tool_use, tool_result, image, …
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"` // tool_result: a string or blocks
}

// anthropicBlocks decodes content that is either a plain string or a block list.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var bs []anthropicBlock
	if err := json.Unmarshal(raw, &bs); err != nil {
		return nil, fmt.Errorf("content is neither a string nor blocks: %w", err)
	}
	return bs, nil
}

// anthropicText joins the text of the text blocks in raw.
func anthropicText(raw json.RawMessage) string {
	bs, _ := anthropicBlocks(raw) // Best effort: a result we cannot read is empty.
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// isClaudeReminder reports whether a text block is one Claude Code injects into
// the user's message rather than something the user typed: it wraps
// context (git attribution, CLAUDE.md, todo state, hook output) in
// <system-reminder> tags, in blocks of their own before or after the
// user's text.
func isClaudeReminder(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "<system-reminder>")
}

// parseAnthropic fills r's UserText, ToolResult and HasResult from the
// newest user message of body, and Side (see isAnthropicSide).
func parseAnthropic(r *Request, body []byte) (anthropicRequest, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return req, fmt.Errorf("decode messages request: %w", err)
	}
	// The newest user message, skipping the role "system" messages Claude
	// Code appends after it.
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		bs, err := anthropicBlocks(m.Content)
		if err != nil {
			return req, fmt.Errorf("message %d: %w", i, err)
		}
		// The last text the user typed: when a turn failed, Claude Code
		// sends the failed prompt and the next one as blocks of one
		// message.
		for _, b := range bs {
			switch {
			case b.Type == "tool_result":
				r.HasResult = true
				r.ToolResult = anthropicText(b.Content)
			case b.Type == "text" && !isClaudeReminder(b.Text):
				r.UserText = strings.TrimSpace(b.Text)
			}
		}
		break
	}
	r.Side = isAnthropicSide(req)
	return req, nil
}

// isAnthropicSide reports whether req is one of Claude Code's side requests
// rather than a turn of the conversation the user sees. Every turn of the
// main loop (and of a subagent) offers tools, Bash among them; the side
// requests — the session title, which also asks for a json_schema answer
// and goes to the small fast (haiku) model — offer none. The model name is
// not used: a test may well pin ANTHROPIC_MODEL to a haiku model.
func isAnthropicSide(req anthropicRequest) bool {
	return len(req.Tools) == 0
}

// anthropicSideText is the answer to a side request: for structured output,
// a JSON object with every required property a string (SideTitle for
// "title"); otherwise one short line.
func anthropicSideText(req anthropicRequest) string {
	f := req.OutputConfig.Format
	if f == nil || f.Type != "json_schema" {
		return "stand-in side answer"
	}
	out := map[string]string{}
	for _, name := range f.Schema.Required {
		out[name] = "stand-in " + name
	}
	if _, ok := f.Schema.Properties["title"]; ok {
		out["title"] = SideTitle
	}
	b, _ := json.Marshal(out) // strings only: cannot fail
	return string(b)
}
