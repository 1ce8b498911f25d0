package fakemodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// codexInput is an input list shaped like Codex's first request: its
// developer prompt, AGENTS.md and the environment as user messages, then
// what the person typed.
func codexInput(prompt string, extra ...any) []any {
	msg := func(role, text string) any {
		return map[string]any{"type": "message", "role": role, "content": []any{
			map[string]any{"type": "input_text", "text": text},
		}}
	}
	in := []any{
		msg("developer", "You are a coding agent running in the Codex CLI."),
		msg("user", "# AGENTS.md instructions for /proj\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>"),
		msg("user", "<environment_context>\n  <cwd>/proj</cwd>\n</environment_context>"),
		msg("user", prompt),
	}
	return append(in, extra...)
}

// openaiBody is a streaming request for input.
func openaiBody(input any) map[string]any {
	return map[string]any{"model": "fake-model", "stream": true, "input": input,
		"tools": []any{map[string]any{"type": "function", "name": "exec_command"}}}
}

// sseEvents splits an SSE body into its events' JSON data.
func sseEvents(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, block := range strings.Split(body, "\n\n") {
		var name string
		for _, line := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("event data %q: %v", data, err)
			}
			if m["type"] != name {
				t.Fatalf("event %q carries type %v", name, m["type"])
			}
			out = append(out, m)
		}
	}
	return out
}

// post sends body to the server's /v1/responses and returns the status and
// the response body.
func post(t *testing.T, s *Server, body any) (int, string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL+"/v1/responses", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(out)
}

// stream posts body, wants a 200 event stream and returns its events.
func stream(t *testing.T, s *Server, body any) []map[string]any {
	t.Helper()
	status, out := post(t, s, body)
	if status != http.StatusOK {
		t.Fatalf("status %d, body %s", status, out)
	}
	return sseEvents(t, out)
}

func types(events []map[string]any) []string {
	var out []string
	for _, e := range events {
		out = append(out, e["type"].(string))
	}
	return out
}

// deltaText joins the output_text deltas.
func deltaText(events []map[string]any) (string, int) {
	var b strings.Builder
	n := 0
	for _, e := range events {
		if e["type"] == "response.output_text.delta" {
			b.WriteString(e["delta"].(string))
			n++
		}
	}
	return b.String(), n
}

// doneItems returns the items of the output_item.done events.
func doneItems(events []map[string]any) []map[string]any {
	var out []map[string]any
	for _, e := range events {
		if e["type"] == "response.output_item.done" {
			out = append(out, e["item"].(map[string]any))
		}
	}
	return out
}

func lastRequest(t *testing.T, s *Server) Request {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request logged")
	}
	return reqs[len(reqs)-1]
}

func TestOpenAITextTurn(t *testing.T) {
	s := startServer(t)
	s.Queue(Turn{Text: "hello from the stand-in"})
	events := stream(t, s, openaiBody(codexInput("hi there")))

	want := []string{"response.created", "response.in_progress", "response.output_item.added",
		"response.content_part.added", "response.output_text.delta"}
	got := types(events)
	if len(got) < len(want) || strings.Join(got[:len(want)], " ") != strings.Join(want, " ") {
		t.Fatalf("events start %v, want %v", got, want)
	}
	tail := []string{"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}
	if strings.Join(got[len(got)-len(tail):], " ") != strings.Join(tail, " ") {
		t.Fatalf("events end %v, want %v", got, tail)
	}
	for i, e := range events {
		if n, _ := e["sequence_number"].(float64); int(n) != i {
			t.Fatalf("event %d has sequence_number %v", i, e["sequence_number"])
		}
	}
	if text, n := deltaText(events); text != "hello from the stand-in" || n < 2 {
		t.Fatalf("deltas %q in %d pieces", text, n)
	}
	items := doneItems(events)
	if len(items) != 1 || items[0]["type"] != "message" || items[0]["role"] != "assistant" {
		t.Fatalf("done items %v", items)
	}
	completed := events[len(events)-1]["response"].(map[string]any)
	usage := completed["usage"].(map[string]any)
	if completed["status"] != "completed" || usage["total_tokens"].(float64) <= 0 {
		t.Fatalf("response.completed carries %v", completed)
	}

	r := lastRequest(t, s)
	if r.API != "openai" || r.UserText != "hi there" || r.Side || r.HasResult || r.Turn.Text != "hello from the stand-in" {
		t.Fatalf("logged %+v", r)
	}
}

func TestOpenAIStringInput(t *testing.T) {
	s := startServer(t)
	events := stream(t, s, openaiBody("SAY plain"))
	if text, _ := deltaText(events); text != "plain" {
		t.Fatalf("answer %q, want plain", text)
	}
}

func TestOpenAIRunCallsExecCommand(t *testing.T) {
	s := startServer(t)
	events := stream(t, s, openaiBody(codexInput("RUN: touch /tmp/x")))
	items := doneItems(events)
	if len(items) != 2 || items[0]["type"] != "message" || items[1]["type"] != "function_call" {
		t.Fatalf("done items %v, want a message then a function_call", items)
	}
	call := items[1]
	if call["name"] != "exec_command" || call["call_id"] == "" {
		t.Fatalf("call %v", call)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(call["arguments"].(string)), &args); err != nil {
		t.Fatal(err)
	}
	if args["cmd"] != "touch /tmp/x" || args["sandbox_permissions"] != "require_escalated" || args["justification"] == "" {
		t.Fatalf("arguments %v", args)
	}
	completed := events[len(events)-1]["response"].(map[string]any)
	if out := completed["output"].([]any); len(out) != 2 {
		t.Fatalf("response.completed output has %d items, want 2", len(out))
	}
	if r := lastRequest(t, s); r.Turn.Tool == nil || r.Turn.Tool.Command != "touch /tmp/x" {
		t.Fatalf("logged turn %+v", r.Turn)
	}
}

func TestOpenAIToolOnlyTurn(t *testing.T) {
	s := startServer(t)
	s.Queue(Turn{Tool: &ToolCall{Command: "ls"}})
	items := doneItems(stream(t, s, openaiBody(codexInput("anything"))))
	if len(items) != 1 || items[0]["type"] != "function_call" {
		t.Fatalf("done items %v, want one function_call", items)
	}
}

func TestOpenAIToolResult(t *testing.T) {
	call := map[string]any{"type": "function_call", "name": "exec_command", "call_id": "call_1", "arguments": "{}"}
	for name, output := range map[string]any{
		"string": "Process exited with code 0\nOutput:\n",
		// As Codex 0.169 sends exec_command's result: the bookkeeping
		// lines differ from run to run and are left out.
		"exec":   "Chunk ID: 365ca0\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n",
		"parts":  []any{map[string]any{"type": "input_text", "text": "Process exited with code 0"}},
		"object": map[string]any{"content": "Process exited with code 0", "success": true},
	} {
		t.Run(name, func(t *testing.T) {
			s := startServer(t)
			result := map[string]any{"type": "function_call_output", "call_id": "call_1", "output": output}
			events := stream(t, s, openaiBody(codexInput("RUN: true", call, result)))
			if text, _ := deltaText(events); text != "done: Process exited with code 0" {
				t.Fatalf("answer %q", text)
			}
			r := lastRequest(t, s)
			if !r.HasResult || !strings.HasPrefix(r.ToolResult, "Process exited with code 0") || r.UserText != "RUN: true" {
				t.Fatalf("logged %+v", r)
			}
		})
	}
}

func TestOpenAISlowSpreadsDelay(t *testing.T) {
	s := startServer(t)
	s.Queue(Turn{Text: "a fairly long answer streamed slowly", Delay: 400 * time.Millisecond})
	start := time.Now()
	events := stream(t, s, openaiBody(codexInput("go")))
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Fatalf("answered in %v, want at least 400ms", took)
	}
	if text, n := deltaText(events); text != "a fairly long answer streamed slowly" || n < 4 {
		t.Fatalf("deltas %q in %d pieces, want at least 4", text, n)
	}
}

func TestOpenAIStatus(t *testing.T) {
	s := startServer(t)
	status, body := post(t, s, openaiBody(codexInput("FAIL 503")))
	if status != 503 {
		t.Fatalf("status %d, want 503", status)
	}
	var e struct {
		Error struct{ Message, Type string }
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" || e.Error.Type != "server_error" {
		t.Fatalf("error body %s (%v)", body, err)
	}
	s.Queue(Turn{Status: 429})
	if status, body := post(t, s, openaiBody(codexInput("x"))); status != 429 || !strings.Contains(body, "rate_limit_error") {
		t.Fatalf("status %d body %s, want 429 rate_limit_error", status, body)
	}
}

func TestOpenAIHangEndsWithClient(t *testing.T) {
	s := startServer(t)
	b, _ := json.Marshal(openaiBody(codexInput("HANG")))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/responses", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a hanging turn answered %d", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the client's deadline, got %v", err)
	}
	if r := lastRequest(t, s); !r.Turn.Hang {
		t.Fatalf("logged turn %+v, want Hang", r.Turn)
	}
	// The handler returned when the client hung up, so Close is quick.
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second { // an outliving handler holds Close for good
		t.Fatalf("Close took %v: the hanging handler outlived its client", took)
	}
}

// titleRequest is Codex's thread-title request: no tools, structured
// output asking for {"title": ...}.
func titleRequest() map[string]any {
	body := openaiBody(codexInput("Generate a concise, single-line task title.\n\nUser prompt:\nhi"))
	body["tools"] = []any{}
	body["text"] = map[string]any{"format": map[string]any{
		"type": "json_schema", "strict": true, "name": "codex_output_schema",
		"schema": map[string]any{"type": "object", "required": []any{"title"},
			"properties": map[string]any{"title": map[string]any{"type": "string"}}},
	}}
	return body
}

func TestOpenAISideRequestKeepsQueue(t *testing.T) {
	s := startServer(t)
	s.Queue(Turn{Text: "queued"})
	events := stream(t, s, titleRequest())
	text, _ := deltaText(events)
	var title struct{ Title string }
	if err := json.Unmarshal([]byte(text), &title); err != nil || title.Title != SideTitle {
		t.Fatalf("title answer %q (%v)", text, err)
	}
	if r := lastRequest(t, s); !r.Side || r.Turn != (Turn{}) {
		t.Fatalf("logged %+v, want a side request with no turn", r)
	}
	if text, _ := deltaText(stream(t, s, openaiBody(codexInput("next")))); text != "queued" {
		t.Fatalf("the turn after a side request got %q, want the queued one", text)
	}
}

func TestOpenAISideEndpoints(t *testing.T) {
	s := startServer(t)
	resp, err := http.Get(s.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var models struct{ Data []struct{ ID string } }
	err = json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(models.Data) == 0 {
		t.Fatalf("models: status %d, %+v, %v", resp.StatusCode, models, err)
	}
	resp, err = http.Post(s.URL+"/v1/responses/compact", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("compact: status %d", resp.StatusCode)
	}
	for _, r := range s.Requests() {
		if r.API != "openai" || !r.Side {
			t.Fatalf("logged %+v, want openai side requests", r)
		}
	}
	if n := len(s.Requests()); n != 2 {
		t.Fatalf("logged %d requests, want 2", n)
	}
}

func TestOpenAIBadBody(t *testing.T) {
	s := startServer(t)
	s.Queue(Turn{Text: "kept"})
	if status, _ := post(t, s, "not an object"); status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", status)
	}
	if text, _ := deltaText(stream(t, s, openaiBody(codexInput("x")))); text != "kept" {
		t.Fatalf("a bad body consumed the queued turn; got %q", text)
	}
}
