package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// openaiRoutes serves the OpenAI Responses API as Codex uses it: one
// streaming POST /v1/responses per model call (turns and side requests
// alike), plus the few side endpoints Codex may reach, answered harmlessly
// and logged.
func (s *Server) openaiRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/responses", s.openaiResponses)
	// Remote compaction (POST /v1/responses/compact) and anything else
	// below /v1/responses/.
	mux.HandleFunc("/v1/responses/", s.openaiSide)
	// The model list, asked for by model discovery.
	mux.HandleFunc("GET /v1/models", s.openaiModels)
}

// openaiMaxBody bounds a request body: Codex's first request carries its
// whole system prompt and tool list (about 50 KB), later ones the history.
const openaiMaxBody = 32 << 20

// openaiResponses answers one model call.
func (s *Server) openaiResponses(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, openaiMaxBody))
	if err != nil {
		openaiError(w, http.StatusBadRequest, fmt.Sprintf("reading body: %v", err))
		return
	}
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.decide(Request{API: "openai", Method: r.Method, Path: r.URL.Path, Body: body, Side: true})
		openaiError(w, http.StatusBadRequest, fmt.Sprintf("parsing body: %v", err))
		return
	}
	logged := Request{
		API: "openai", Method: r.Method, Path: r.URL.Path, Body: body,
		UserText: req.userText(),
		Side:     req.side(),
	}
	logged.ToolResult, logged.HasResult = req.toolResult()
	turn := s.decide(logged)
	sw := newOpenAIStream(w, r, req.Model, len(body))
	if logged.Side {
		sw.start()
		sw.message(req.sideAnswer(), 0)
		sw.complete()
		return
	}
	switch {
	case turn.Status != 0:
		openaiError(w, turn.Status, fmt.Sprintf("fakemodel: scripted failure with status %d", turn.Status))
	case turn.Hang:
		// Nothing is written, as the Anthropic side does: the agent waits
		// for headers that never come (Codex shows its working line).
		<-r.Context().Done()
	default:
		sw.start()
		if turn.Text != "" || turn.Tool == nil {
			if !sw.message(turn.Text, turn.Delay) {
				return // the agent hung up mid-stream
			}
		}
		if turn.Tool != nil {
			sw.execCommand(turn.Tool.Command)
		}
		sw.complete()
	}
}

// openaiSide answers endpoints Codex may call besides model turns, such as
// remote compaction, with an empty success, so a stray call never breaks a
// test; the request is logged as a side request.
func (s *Server) openaiSide(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, openaiMaxBody))
	s.decide(Request{API: "openai", Method: r.Method, Path: r.URL.Path, Body: body, Side: true})
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"output":[]}`)
}

// openaiModels lists one model: whatever name the agent asks for works,
// since the stand-in ignores it.
func (s *Server) openaiModels(w http.ResponseWriter, r *http.Request) {
	s.decide(Request{API: "openai", Method: r.Method, Path: r.URL.Path, Side: true})
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"fake-model","object":"model","created":0,"owned_by":"fakemodel"}]}`)
}

// openaiError answers with an OpenAI-style error body, which Codex shows
// on screen.
func openaiError(w http.ResponseWriter, status int, message string) {
	typ := "server_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case status < 500:
		typ = "invalid_request_error"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": typ, "param": nil, "code": nil,
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
