package fakemodel

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// claudeTools is the tool list of a main-loop request (Claude Code sends
// full schemas of about a dozen tools).
var claudeTools = []any{map[string]any{"name": "Bash", "input_schema": map[string]any{"type": "object"}}}

// claudeBody is a request shaped like Claude Code's first turn: a
// system-reminder block before the typed text, a role "system" message
// after it, tools, streaming.
func claudeBody(prompt string) map[string]any {
	return map[string]any{
		"model": "claude-opus-5-5", "max_tokens": 128000, "stream": true, "tools": claudeTools,
		"system": []any{map[string]any{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."}},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "<system-reminder>\nAttribution for git commits\n</system-reminder>\n"},
				map[string]any{"type": "text", "text": prompt},
			}},
			map[string]any{"role": "system", "content": "# Environment\n - Primary working directory: /proj"},
		},
	}
}

// postAnthropic posts body to path ("/v1/messages?beta=true", as Claude
// Code does) and returns the response and its body.
func postAnthropic(t *testing.T, s *Server, path string, body any) (*http.Response, string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(out)
}

// anthropicEvent is one server-sent event: its name and JSON data.
type anthropicEvent struct {
	name string
	data map[string]any
}

// parseSSE splits an SSE body into events, checking each names its type.
func parseSSE(t *testing.T, body string) []anthropicEvent {
	t.Helper()
	var out []anthropicEvent
	for _, block := range strings.Split(strings.TrimSpace(body), "\n\n") {
		var e anthropicEvent
		for _, line := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				e.name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				if err := json.Unmarshal([]byte(v), &e.data); err != nil {
					t.Fatalf("event data %q: %v", v, err)
				}
			}
		}
		if e.name == "" || e.data["type"] != e.name {
			t.Fatalf("malformed event %q", block)
		}
		out = append(out, e)
	}
	return out
}

// streamed is what a client assembles from a message stream.
type streamed struct {
	names    []string         // event names in order
	blocks   []map[string]any // content blocks, tool inputs decoded
	text     string           // the text blocks' text
	deltas   int              // text_delta events
	stop     string           // message_delta's stop_reason
	toolName string
	input    map[string]any // the tool_use block's input
}

func assemble(t *testing.T, events []anthropicEvent) streamed {
	t.Helper()
	var s streamed
	partial := map[int]string{}
	for _, e := range events {
		s.names = append(s.names, e.name)
		switch e.name {
		case "content_block_start":
			s.blocks = append(s.blocks, e.data["content_block"].(map[string]any))
		case "content_block_delta":
			d := e.data["delta"].(map[string]any)
			i := int(e.data["index"].(float64))
			switch d["type"] {
			case "text_delta":
				s.text += d["text"].(string)
				s.deltas++
			case "input_json_delta":
				partial[i] += d["partial_json"].(string)
			}
		case "content_block_stop":
			i := int(e.data["index"].(float64))
			if p, ok := partial[i]; ok {
				if err := json.Unmarshal([]byte(p), &s.input); err != nil {
					t.Fatalf("tool input %q: %v", p, err)
				}
				s.toolName, _ = s.blocks[i]["name"].(string)
			}
		case "message_delta":
			s.stop = e.data["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	return s
}

func TestAnthropicStreamsText(t *testing.T) {
	s := startServer(t)
	resp, body := postAnthropic(t, s, "/v1/messages?beta=true", claudeBody("hello there"))
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	got := assemble(t, parseSSE(t, body))
	names := strings.Join(got.names, " ")
	if !strings.HasPrefix(names, "message_start ping content_block_start content_block_delta") ||
		!strings.HasSuffix(names, "content_block_stop message_delta message_stop") {
		t.Fatalf("events: %s", names)
	}
	if got.text != "ok: hello there" || got.stop != "end_turn" || got.deltas < 2 {
		t.Fatalf("text %q in %d deltas, stop %q", got.text, got.deltas, got.stop)
	}
	r := s.Requests()[0]
	if r.API != "anthropic" || r.Path != "/v1/messages" || r.UserText != "hello there" || r.Side || r.HasResult || r.Turn.Text != "ok: hello there" {
		t.Fatalf("logged %+v", r)
	}
}

func TestAnthropicToolCall(t *testing.T) {
	s := startServer(t)
	_, body := postAnthropic(t, s, "/v1/messages", claudeBody("RUN: touch it.txt"))
	got := assemble(t, parseSSE(t, body))
	if got.stop != "tool_use" || got.toolName != "Bash" || got.text != "running it" {
		t.Fatalf("stop %q, tool %q, text %q", got.stop, got.toolName, got.text)
	}
	if got.input["command"] != "touch it.txt" || got.input["description"] == "" {
		t.Fatalf("tool input %v", got.input)
	}
	if len(got.blocks) != 2 || got.blocks[0]["type"] != "text" || got.blocks[1]["type"] != "tool_use" || got.blocks[1]["id"] == "" {
		t.Fatalf("blocks %v", got.blocks)
	}
}

func TestAnthropicAnswersToolResult(t *testing.T) {
	for name, content := range map[string]any{
		"string": "first line\nsecond",
		"blocks": []any{map[string]any{"type": "text", "text": "first line\nsecond"}},
	} {
		t.Run(name, func(t *testing.T) {
			s := startServer(t)
			req := claudeBody("RUN: cat f")
			req["messages"] = append(req["messages"].([]any),
				map[string]any{"role": "assistant", "content": []any{
					map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "cat f"}},
				}},
				map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": content, "is_error": false},
				}})
			_, body := postAnthropic(t, s, "/v1/messages", req)
			if got := assemble(t, parseSSE(t, body)); got.text != "done: first line" || got.stop != "end_turn" {
				t.Fatalf("text %q, stop %q", got.text, got.stop)
			}
			if r := s.Requests()[0]; !r.HasResult || r.ToolResult != "first line\nsecond" || r.UserText != "" {
				t.Fatalf("logged %+v", r)
			}
		})
	}
}

// After a failed turn Claude Code sends the failed prompt and the next one
// as blocks of one user message; the newest is the last.
func TestAnthropicUserTextIsLastBlock(t *testing.T) {
	s := startServer(t)
	req := claudeBody("")
	req["messages"] = []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "FAIL 400\n"},
		map[string]any{"type": "text", "text": "SAY again"},
		map[string]any{"type": "text", "text": "<system-reminder>\ntodo list empty\n</system-reminder>"},
	}}}
	_, body := postAnthropic(t, s, "/v1/messages", req)
	if got := assemble(t, parseSSE(t, body)); got.text != "again" {
		t.Fatalf("text %q, want the answer to the newest prompt", got.text)
	}
}

func TestAnthropicSlowSpreadsText(t *testing.T) {
	s := startServer(t)
	s.Queue(Turn{Text: "one two three four five", Delay: 400 * time.Millisecond})
	start := time.Now()
	_, body := postAnthropic(t, s, "/v1/messages", claudeBody("anything"))
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Fatalf("answered in %v, want at least the delay", d)
	}
	if got := assemble(t, parseSSE(t, body)); got.text != "one two three four five" || got.deltas < 4 {
		t.Fatalf("text %q in %d deltas, want it spread", got.text, got.deltas)
	}
}

func TestAnthropicFailsWithStatus(t *testing.T) {
	for status, typ := range map[int]string{400: "invalid_request_error", 529: "overloaded_error", 500: "api_error", 503: "api_error"} {
		s := startServer(t)
		s.Queue(Turn{Status: status})
		resp, body := postAnthropic(t, s, "/v1/messages", claudeBody("x"))
		var e struct {
			Type  string `json:"type"`
			Error struct{ Type, Message string }
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			t.Fatalf("%d: body %q: %v", status, body, err)
		}
		if resp.StatusCode != status || e.Type != "error" || e.Error.Type != typ || e.Error.Message == "" {
			t.Fatalf("status %d, body %s; want %d %s", resp.StatusCode, body, status, typ)
		}
	}
}

func TestAnthropicHangEndsWithClient(t *testing.T) {
	s := startServer(t)
	b, _ := json.Marshal(claudeBody("HANG"))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/messages", bytes.NewReader(b))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("a hanging turn answered %d", resp.StatusCode)
	}
	if r := s.Requests()[0]; !r.Turn.Hang {
		t.Fatalf("logged %+v", r)
	}
}

func TestAnthropicHangEndsWithClose(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		b, _ := json.Marshal(claudeBody("HANG"))
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", bytes.NewReader(b))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	if _, ok := s.WaitFor(5*time.Second, func(r Request) bool { return r.Turn.Hang }); !ok {
		t.Fatal("the hanging request never arrived")
	}
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Close took %v", d)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the hanging request outlived Close")
	}
}

func TestAnthropicNotStreaming(t *testing.T) {
	s := startServer(t)
	req := claudeBody("RUN: ls")
	req["stream"] = false
	resp, body := postAnthropic(t, s, "/v1/messages", req)
	var m struct {
		Type, Role, Model string
		StopReason        string `json:"stop_reason"`
		Content           []map[string]any
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, body %s: %v", resp.StatusCode, body, err)
	}
	if m.Type != "message" || m.Role != "assistant" || m.Model != "claude-opus-5-5" || m.StopReason != "tool_use" || len(m.Content) != 2 {
		t.Fatalf("message %+v", m)
	}
	if m.Content[0]["text"] != "running it" || m.Content[1]["name"] != "Bash" || m.Content[1]["input"].(map[string]any)["command"] != "ls" {
		t.Fatalf("content %v", m.Content)
	}
}

// The title request: no tools, the small model, a json_schema answer.
func TestAnthropicSideRequestsKeepTheQueue(t *testing.T) {
	s := startServer(t)
	s.Queue(Turn{Text: "queued answer"})
	title := map[string]any{
		"model": "claude-haiku-5-5", "max_tokens": 128000, "stream": true, "tools": []any{},
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<session>\nhello\n</session>\n\nWrite the title"},
		}}},
		"output_config": map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{
			"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}, "required": []any{"title"},
		}}},
	}
	_, body := postAnthropic(t, s, "/v1/messages", title)
	var answer map[string]string
	if err := json.Unmarshal([]byte(assemble(t, parseSSE(t, body)).text), &answer); err != nil || answer["title"] != SideTitle {
		t.Fatalf("title answer %q: %v", body, err)
	}
	resp, body := postAnthropic(t, s, "/v1/messages/count_tokens?beta=true", claudeBody("hello"))
	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.Unmarshal([]byte(body), &count); err != nil || resp.StatusCode != 200 || count.InputTokens <= 0 {
		t.Fatalf("count_tokens: %d %s: %v", resp.StatusCode, body, err)
	}
	// The queued turn is still there for the real one.
	_, body = postAnthropic(t, s, "/v1/messages", claudeBody("hello"))
	if got := assemble(t, parseSSE(t, body)).text; got != "queued answer" {
		t.Fatalf("turn after side requests: %q", got)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || !reqs[0].Side || !reqs[1].Side || reqs[2].Side {
		t.Fatalf("logged %+v", reqs)
	}
	if reqs[0].Turn != (Turn{}) || reqs[1].Path != "/v1/messages/count_tokens" {
		t.Fatalf("side requests logged as %+v", reqs[:2])
	}
}

func TestAnthropicOtherPaths(t *testing.T) {
	s := startServer(t)
	req, _ := http.NewRequest("HEAD", s.URL+"/api/hello", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD /api/hello: %v %v", resp, err)
	}
	resp, err = http.Get(s.URL + "/api/oauth/profile")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(body), `"not_found_error"`) {
		t.Fatalf("unknown path: %d %s", resp.StatusCode, body)
	}
	resp, body2 := postAnthropic(t, s, "/v1/messages", "not an object")
	if resp.StatusCode != 400 {
		t.Fatalf("bad body: %d %s", resp.StatusCode, body2)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[1].API != "unknown" || reqs[1].Path != "/api/oauth/profile" {
		t.Fatalf("logged %+v", reqs)
	}
	for _, r := range reqs {
		if !r.Side {
			t.Fatalf("%s %s spent a turn", r.Method, r.Path)
		}
	}
}
