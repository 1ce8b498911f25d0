package fakemodel

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Turn is what the model does for one (non-side) request.
type Turn struct {
	Text   string        // the answer's text
	Delay  time.Duration // stream Text over this long (the agent is visibly busy)
	Tool   *ToolCall     // call the shell tool instead of (or after) Text
	Status int           // answer with this HTTP error status instead
	Hang   bool          // never answer; the handler returns when the agent hangs up
}

// ToolCall is a call of the agent's shell tool, or, with Name, of another
// tool (an MCP server's: mcp__<server>__<tool>) with no input.
type ToolCall struct {
	Command string
	Name    string
	// Input, with Name, is the tool's input (Claude's Write: file_path,
	// content); nil: none.
	Input map[string]string
}

// Decide picks the turn for a request whose newest user text is userText
// and whose newest message carries toolResult (empty if none), following
// the rules in the package doc.
func Decide(userText, toolResult string, hasToolResult bool) Turn {
	if hasToolResult {
		first, _, _ := strings.Cut(strings.TrimSpace(toolResult), "\n")
		return Turn{Text: "done: " + first}
	}
	text := strings.TrimSpace(userText)
	switch {
	case strings.HasPrefix(text, "RUN:"):
		return Turn{Text: "running it", Tool: &ToolCall{Command: strings.TrimSpace(strings.TrimPrefix(text, "RUN:"))}}
	case strings.HasPrefix(text, "SLOW "):
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(text, "SLOW ")))
		if err != nil || n < 0 {
			return Turn{Text: fmt.Sprintf("bad SLOW rule %q: want SLOW <seconds>", text)}
		}
		return Turn{Text: slowText(n), Delay: time.Duration(n) * time.Second}
	case strings.HasPrefix(text, "FAIL "):
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(text, "FAIL ")))
		if err != nil || n < 400 || n > 599 {
			return Turn{Text: fmt.Sprintf("bad FAIL rule %q: want FAIL <400-599>", text)}
		}
		return Turn{Status: n}
	case strings.HasPrefix(text, "WRITE:"):
		path, content, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(text, "WRITE:")), " ")
		return Turn{Text: "writing it", Tool: &ToolCall{Name: "Write", Input: map[string]string{"file_path": path, "content": content + "\n"}}}
	case strings.HasPrefix(text, "MCP:"):
		return Turn{Text: "asking it", Tool: &ToolCall{Name: strings.TrimSpace(strings.TrimPrefix(text, "MCP:"))}}
	case text == "HANG":
		return Turn{Hang: true}
	case strings.HasPrefix(text, "SAY "):
		return Turn{Text: strings.TrimPrefix(text, "SAY ")}
	}
	return Turn{Text: "ok: " + text}
}

// slowText is long enough to be streamed in many visible pieces.
func slowText(seconds int) string {
	words := make([]string, 0, 10*max(seconds, 1))
	for i := range cap(words) {
		words = append(words, fmt.Sprintf("word%d", i+1))
	}
	return "streaming slowly: " + strings.Join(words, " ")
}

// chunks splits text into n roughly equal pieces for streaming.
func chunks(text string, n int) []string {
	if n <= 1 || len(text) <= n {
		return []string{text}
	}
	size := (len(text) + n - 1) / n
	var out []string
	for len(text) > 0 {
		cut := min(size, len(text))
		// Do not split a UTF-8 sequence.
		for cut < len(text) && text[cut]&0xc0 == 0x80 {
			cut++
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	return out
}
