package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// geminiRoutes serves the Gemini API (generativelanguage v1beta) as Gemini
// CLI uses it with an API key and GOOGLE_GEMINI_BASE_URL: POST
// /v1beta/models/{model}:{method} with method streamGenerateContent
// (?alt=sse: the turns), generateContent (side requests: the next-speaker
// check, the model router) or countTokens.
func (s *Server) geminiRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1beta/models/", s.geminiModels)
	mux.HandleFunc("POST /v1/models/", s.geminiModels)
}

// geminiMaxBody bounds a request body: Gemini CLI's first request carries
// its system instruction and tool declarations (about 60 KB).
const geminiMaxBody = 32 << 20

// geminiModels dispatches on the method after the model's colon.
func (s *Server) geminiModels(w http.ResponseWriter, r *http.Request) {
	_, method, ok := strings.Cut(r.URL.Path, ":")
	body, err := io.ReadAll(io.LimitReader(r.Body, geminiMaxBody))
	if err != nil {
		geminiError(w, http.StatusBadRequest, fmt.Sprintf("reading body: %v", err))
		return
	}
	logged := Request{API: "gemini", Method: r.Method, Path: r.URL.Path, Body: body}
	if !ok || (method != "streamGenerateContent" && method != "generateContent" && method != "countTokens") {
		logged.Side = true
		s.decide(logged)
		geminiError(w, http.StatusNotFound, "fakemodel: no Gemini method "+r.URL.Path+" (want :streamGenerateContent, :generateContent or :countTokens)")
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		logged.Side = true
		s.decide(logged)
		geminiError(w, http.StatusBadRequest, fmt.Sprintf("parsing body: %v", err))
		return
	}
	if method == "countTokens" {
		logged.Side = true
		s.decide(logged)
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": len(body)/4 + 1})
		return
	}
	logged.UserText = req.userText()
	logged.ToolResult, logged.HasResult = req.toolResult()
	logged.Side = req.side()
	turn := s.decide(logged)
	stream := method == "streamGenerateContent"
	if logged.Side {
		turn = Turn{Text: req.sideAnswer()}
	}
	switch {
	case turn.Status != 0:
		geminiError(w, turn.Status, fmt.Sprintf("fakemodel: scripted failure with status %d", turn.Status))
	case turn.Hang:
		<-r.Context().Done() // Nothing written: the agent waits for headers.
	case stream:
		streamGemini(w, r, turn, len(body))
	default:
		writeJSON(w, http.StatusOK, geminiChunk(geminiParts(turn), "STOP", len(body), len(turn.Text)))
	}
}

// streamGemini answers a turn as server-sent events, each a
// GenerateContentResponse holding a piece of the answer; the last one
// carries finishReason STOP and the usage. A function call is a part of
// its own in the last chunk.
func streamGemini(w http.ResponseWriter, r *http.Request, turn Turn, inBytes int) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(v any) {
		b, _ := json.Marshal(v)
		_, _ = fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	// Without a delay the text goes in one piece: Gemini CLI 0.61 joins a
	// turn's streamed pieces with spaces for AfterAgent's prompt_response
	// ("hell o th ere"), so several pieces would garble the hook's summary.
	pieces := []string{turn.Text}
	switch {
	case turn.Text == "":
		pieces = nil
	case turn.Delay > 0:
		pieces = chunks(turn.Text, streamPieces(turn.Text, turn.Delay))
	}
	for i, piece := range pieces {
		if i > 0 && turn.Delay > 0 {
			if !sleepOrDone(r, turn.Delay/time.Duration(len(pieces)-1)) {
				return // the agent hung up mid-stream
			}
		}
		if i < len(pieces)-1 || turn.Tool != nil {
			send(geminiChunk([]any{map[string]any{"text": piece}}, "", 0, 0))
			continue
		}
		send(geminiChunk([]any{map[string]any{"text": piece}}, "STOP", inBytes, len(turn.Text)))
	}
	if turn.Tool != nil || len(pieces) == 0 {
		parts := []any{}
		if turn.Tool != nil {
			parts = append(parts, geminiShellCall(turn.Tool.Command))
		}
		send(geminiChunk(parts, "STOP", inBytes, len(turn.Text)))
	}
}

// geminiParts is a whole answer's parts: its text, then its function call.
func geminiParts(turn Turn) []any {
	parts := []any{}
	if turn.Text != "" {
		parts = append(parts, map[string]any{"text": turn.Text})
	}
	if turn.Tool != nil {
		parts = append(parts, geminiShellCall(turn.Tool.Command))
	}
	return parts
}

// geminiShellCall calls Gemini CLI's shell tool, run_shell_command, which
// asks the person first in approval mode "default".
func geminiShellCall(command string) map[string]any {
	return map[string]any{"functionCall": map[string]any{
		"name": "run_shell_command",
		"args": map[string]any{"command": command, "description": "The stand-in model wants to run: " + command},
	}}
}

// geminiChunk is one GenerateContentResponse. finish "" leaves the
// candidate open (a streamed piece); usage is estimated at four bytes a
// token and sent with the last piece only.
func geminiChunk(parts []any, finish string, inBytes, outBytes int) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	out := map[string]any{"candidates": []any{cand}, "modelVersion": "fake-model", "responseId": openaiID("gem")}
	if finish != "" {
		cand["finishReason"] = finish
		in, o := inBytes/4+1, outBytes/4+1
		out["usageMetadata"] = map[string]any{"promptTokenCount": in, "candidatesTokenCount": o, "totalTokenCount": in + o}
	}
	return out
}

// geminiError answers with a Google API error body, which Gemini CLI shows
// on screen.
func geminiError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"code": status, "message": message, "status": geminiStatus(status),
	}})
}

// geminiStatus is the google.rpc code name Google APIs give an HTTP status.
func geminiStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "FAILED_PRECONDITION"
}
