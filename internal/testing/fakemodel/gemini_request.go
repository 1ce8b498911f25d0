package fakemodel

import (
	"encoding/json"
	"strings"
)

// geminiRequest is the part of a generateContent request body the
// stand-in reads.
type geminiRequest struct {
	Contents         []geminiContent `json:"contents"`
	Tools            []any           `json:"tools"`
	GenerationConfig *struct {
		ResponseMimeType   string        `json:"responseMimeType"`
		ResponseJSONSchema *geminiSchema `json:"responseJsonSchema"`
		ResponseSchema     *geminiSchema `json:"responseSchema"`
	} `json:"generationConfig"`
}

// geminiContent is one turn of the conversation.
type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

// geminiPart is one part of a turn: text, a function call, or a function's
// response.
type geminiPart struct {
	Text             string `json:"text"`
	Thought          bool   `json:"thought"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiSchema is the part of a JSON schema the side answers need.
type geminiSchema struct {
	Type       string                  `json:"type"`
	Properties map[string]geminiSchema `json:"properties"`
	Required   []string                `json:"required"`
	Enum       []string                `json:"enum"`
}

// userText is the newest user turn's last text part: the typed prompt.
// Gemini CLI sends the environment context as an earlier user turn, so
// the newest one holds what the person typed (or a tool's response).
func (q *geminiRequest) userText() string {
	for i := len(q.Contents) - 1; i >= 0; i-- {
		c := q.Contents[i]
		if c.Role != "user" {
			continue
		}
		for j := len(c.Parts) - 1; j >= 0; j-- {
			if p := c.Parts[j]; p.Text != "" && !p.Thought {
				return p.Text
			}
		}
	}
	return ""
}

// toolResult is the output of the function response in the newest turn,
// if that turn answers a function call: run_shell_command's response is
// {"output": "..."}; others may differ, so any JSON is taken as text.
func (q *geminiRequest) toolResult() (string, bool) {
	if len(q.Contents) == 0 {
		return "", false
	}
	last := q.Contents[len(q.Contents)-1]
	for _, p := range last.Parts {
		if p.FunctionResponse == nil {
			continue
		}
		var out struct {
			Output string `json:"output"`
		}
		if json.Unmarshal(p.FunctionResponse.Response, &out) == nil && out.Output != "" {
			return shellOutput(out.Output), true
		}
		return string(p.FunctionResponse.Response), true
	}
	return "", false
}

// shellOutput is run_shell_command's output without its wrapping: Gemini
// CLI 0.61 sends "<untrusted_context>\nOutput: (empty)\nProcess Group
// PGID: 15542\n</untrusted_context>"; the tags and the PGID line (it
// changes every run) are dropped, so the answer to a tool result reads
// "done: Output: (empty)", the same every time.
func shellOutput(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if t == "<untrusted_context>" || t == "</untrusted_context>" || strings.HasPrefix(t, "Process Group PGID:") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// side reports whether the request is a side request: Gemini CLI's turns
// declare its tools, its helper calls (the next-speaker check, the model
// router, summaries) do not.
func (q *geminiRequest) side() bool {
	return len(q.Tools) == 0
}

// sideAnswer is the text of a side answer: with a JSON schema, an object
// with every required property (an enum's first value, else a string;
// SideTitle for "title"); else one line. Gemini CLI's next-speaker check
// asks for {"reasoning", "next_speaker": "user"|"model"}: "user" is
// first, so the turn ends there.
func (q *geminiRequest) sideAnswer() string {
	gc := q.GenerationConfig
	if gc == nil {
		return "stand-in side answer"
	}
	schema := gc.ResponseJSONSchema
	if schema == nil {
		schema = gc.ResponseSchema
	}
	if schema == nil {
		if gc.ResponseMimeType == "application/json" {
			return "{}"
		}
		return "stand-in side answer"
	}
	out := map[string]any{}
	for _, name := range schema.Required {
		prop := schema.Properties[name]
		switch {
		case len(prop.Enum) > 0:
			out[name] = prop.Enum[0]
		case strings.EqualFold(prop.Type, "number") || strings.EqualFold(prop.Type, "integer"):
			out[name] = 0
		case strings.EqualFold(prop.Type, "boolean"):
			out[name] = false
		case name == "title":
			out[name] = SideTitle
		default:
			out[name] = "stand-in " + name
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
