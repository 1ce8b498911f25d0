package fakemodel

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// geminiBody is a request shaped like Gemini CLI's turns: the session
// context as the first user turn, the model's acknowledgement, then
// contents (the newest turns), with the tools declared.
func geminiBody(contents ...any) map[string]any {
	all := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}}},
		map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Got it."}}},
	}
	return map[string]any{
		"contents": append(all, contents...),
		"tools":    []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "run_shell_command"}}}},
	}
}

func geminiUser(text string) any {
	return map[string]any{"role": "user", "parts": []any{map[string]any{"text": text}}}
}

// postGemini posts body to method of the model gemini-2.5-flash.
func postGemini(t *testing.T, s *Server, method string, body any) (*http.Response, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.URL+"/v1beta/models/gemini-2.5-flash:"+method, "application/json", bytes.NewReader(b))
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

// geminiStreamed is what a client assembles from a streamed answer.
type geminiStreamed struct {
	text   string
	pieces int
	calls  []map[string]any // functionCall parts
	finish string
}

func assembleGemini(t *testing.T, body string) geminiStreamed {
	t.Helper()
	var out geminiStreamed
	for _, block := range strings.Split(body, "\r\n\r\n") {
		data, ok := strings.CutPrefix(strings.TrimSpace(block), "data: ")
		if !ok {
			continue
		}
		var chunk struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						Text         string         `json:"text"`
						FunctionCall map[string]any `json:"functionCall"`
					} `json:"parts"`
				} `json:"content"`
				FinishReason string `json:"finishReason"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		for _, c := range chunk.Candidates {
			for _, p := range c.Content.Parts {
				if p.Text != "" {
					out.text += p.Text
					out.pieces++
				}
				if p.FunctionCall != nil {
					out.calls = append(out.calls, p.FunctionCall)
				}
			}
			if c.FinishReason != "" {
				out.finish = c.FinishReason
			}
		}
	}
	return out
}

func TestGeminiStreamsText(t *testing.T) {
	s := startServer(t)
	resp, body := postGemini(t, s, "streamGenerateContent?alt=sse", geminiBody(geminiUser("what is up")))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	got := assembleGemini(t, body)
	if got.text != "ok: what is up" || got.pieces != 1 || got.finish != "STOP" || len(got.calls) != 0 {
		t.Fatalf("got %+v", got)
	}
	r := s.Requests()[0]
	if r.API != "gemini" || r.UserText != "what is up" || r.Side || r.HasResult {
		t.Fatalf("logged %+v", r)
	}
}

func TestGeminiShellCallAndResult(t *testing.T) {
	s := startServer(t)
	_, body := postGemini(t, s, "streamGenerateContent?alt=sse", geminiBody(geminiUser("RUN: touch made.txt")))
	got := assembleGemini(t, body)
	if got.text != "running it" || len(got.calls) != 1 || got.calls[0]["name"] != "run_shell_command" {
		t.Fatalf("got %+v", got)
	}
	if args, _ := got.calls[0]["args"].(map[string]any); args["command"] != "touch made.txt" {
		t.Fatalf("args %v", got.calls[0]["args"])
	}
	result := map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{
		"name": "run_shell_command", "response": map[string]any{"output": "<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 15542\n</untrusted_context>"},
	}}}}
	call := map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": got.calls[0]}}}
	_, body = postGemini(t, s, "streamGenerateContent?alt=sse", geminiBody(geminiUser("RUN: touch made.txt"), call, result))
	if got := assembleGemini(t, body); got.text != "done: Output: (empty)" {
		t.Fatalf("answer to the result: %+v", got)
	}
	if r := s.Requests()[1]; !r.HasResult || r.ToolResult != "Output: (empty)" {
		t.Fatalf("logged %+v", r)
	}
}

func TestGeminiSlowSpreadsText(t *testing.T) {
	s := startServer(t)
	start := time.Now()
	_, body := postGemini(t, s, "streamGenerateContent?alt=sse", geminiBody(geminiUser("SLOW 1")))
	got := assembleGemini(t, body)
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("SLOW 1 took %v", d)
	}
	if got.pieces < 5 || !strings.HasPrefix(got.text, "streaming slowly: word1 ") || got.finish != "STOP" {
		t.Fatalf("got %d pieces: %+v", got.pieces, got)
	}
}

func TestGeminiFailsWithStatus(t *testing.T) {
	s := startServer(t)
	resp, body := postGemini(t, s, "streamGenerateContent?alt=sse", geminiBody(geminiUser("FAIL 503")))
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || resp.StatusCode != 503 || e.Error.Code != 503 || e.Error.Status != "UNAVAILABLE" || e.Error.Message == "" {
		t.Fatalf("status %d, body %s (%v)", resp.StatusCode, body, err)
	}
}

func TestGeminiSideRequestsKeepTheQueue(t *testing.T) {
	s := startServer(t)
	s.Queue(Turn{Text: "queued"})
	side := map[string]any{
		"contents": []any{geminiUser("Is the model or the user next?")},
		"generationConfig": map[string]any{"responseMimeType": "application/json", "responseJsonSchema": map[string]any{
			"type": "object", "required": []any{"reasoning", "next_speaker"},
			"properties": map[string]any{"reasoning": map[string]any{"type": "string"}, "next_speaker": map[string]any{"type": "string", "enum": []any{"user", "model"}}},
		}},
	}
	_, body := postGemini(t, s, "generateContent", side)
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil || len(resp.Candidates) != 1 {
		t.Fatalf("body %s: %v", body, err)
	}
	var answer map[string]string
	if err := json.Unmarshal([]byte(resp.Candidates[0].Content.Parts[0].Text), &answer); err != nil || answer["next_speaker"] != "user" || answer["reasoning"] == "" {
		t.Fatalf("side answer %q: %v", resp.Candidates[0].Content.Parts[0].Text, err)
	}
	if _, body := postGemini(t, s, "countTokens", geminiBody(geminiUser("x"))); !strings.Contains(body, `"totalTokens"`) {
		t.Fatalf("countTokens: %s", body)
	}
	if got := assembleGemini(t, func() string {
		_, b := postGemini(t, s, "streamGenerateContent?alt=sse", geminiBody(geminiUser("hi")))
		return b
	}()); got.text != "queued" {
		t.Fatalf("the turn after side requests got %q, want the queued turn", got.text)
	}
	if r := s.Requests(); !r[0].Side || !r[1].Side || r[2].Side {
		t.Fatalf("side flags: %v %v %v", r[0].Side, r[1].Side, r[2].Side)
	}
}

func TestGeminiUnknownMethod(t *testing.T) {
	s := startServer(t)
	resp, body := postGemini(t, s, "embedContent", geminiBody(geminiUser("x")))
	if resp.StatusCode != 404 || !strings.Contains(body, "embedContent") || !strings.Contains(body, "streamGenerateContent") {
		t.Fatalf("status %d, body %s", resp.StatusCode, body)
	}
	if r := s.Requests(); len(r) != 1 || !r[0].Side || r[0].API != "gemini" {
		t.Fatalf("logged %+v", r)
	}
}
