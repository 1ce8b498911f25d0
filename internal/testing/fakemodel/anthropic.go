package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// anthropicMaxBody bounds a request body: Claude Code's requests are
// ~60 KB at the start of a conversation and grow with it.
const anthropicMaxBody = 32 << 20

// anthropicIDs numbers message and tool-use ids, unique in the process.
var anthropicIDs atomic.Int64

// anthropicRoutes serves the Anthropic Messages API as Claude Code uses
// it. Claude Code appends "?beta=true" to the paths; patterns ignore the
// query.
func (s *Server) anthropicRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/messages", s.anthropicMessages)
	mux.HandleFunc("POST /v1/messages/count_tokens", s.anthropicCountTokens)
	// Claude Code's connectivity check at startup (not sent when
	// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is set).
	mux.HandleFunc("/api/hello", s.anthropicHello)
}

// anthropicHello answers the connectivity check with 200, logged as a side
// request.
func (s *Server) anthropicHello(w http.ResponseWriter, req *http.Request) {
	s.decide(Request{API: "anthropic", Method: req.Method, Path: req.URL.Path, Side: true})
	w.WriteHeader(http.StatusOK)
}

// anthropicMessages answers POST /v1/messages, streaming or not.
func (s *Server) anthropicMessages(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, anthropicMaxBody))
	if err != nil {
		anthropicError(w, http.StatusBadRequest, fmt.Sprintf("read body: %v", err))
		return
	}
	r := Request{API: "anthropic", Method: req.Method, Path: req.URL.Path, Body: body}
	ar, err := parseAnthropic(&r, body)
	if err != nil {
		r.Side = true // logged, but no turn is spent on a request we cannot read
		s.decide(r)
		anthropicError(w, http.StatusBadRequest, err.Error())
		return
	}
	turn := s.decide(r)
	if r.Side {
		turn = Turn{Text: anthropicSideText(ar)}
	}
	switch {
	case turn.Hang:
		<-req.Context().Done()
	case turn.Status != 0:
		anthropicError(w, turn.Status, fmt.Sprintf("fakemodel: scripted failure %d", turn.Status))
	case ar.Stream:
		streamAnthropic(w, req, ar, turn)
	default:
		if !sleepOrDone(req, turn.Delay) {
			return
		}
		writeJSON(w, http.StatusOK, anthropicReply(ar, turn))
	}
}

// anthropicCountTokens answers POST /v1/messages/count_tokens with a rough
// count (4 bytes a token); it is always a side request.
func (s *Server) anthropicCountTokens(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, anthropicMaxBody))
	if err != nil {
		anthropicError(w, http.StatusBadRequest, fmt.Sprintf("read body: %v", err))
		return
	}
	r := Request{API: "anthropic", Method: req.Method, Path: req.URL.Path, Body: body}
	_, _ = parseAnthropic(&r, body) // Best effort: only for the log.
	r.Side = true
	s.decide(r)
	writeJSON(w, http.StatusOK, map[string]int{"input_tokens": anthropicTokens(len(body))})
}

// anthropicErrorTypes maps statuses to the API's error types.
var anthropicErrorTypes = map[int]string{
	400: "invalid_request_error",
	401: "authentication_error",
	403: "permission_error",
	404: "not_found_error",
	413: "request_too_large",
	429: "rate_limit_error",
	500: "api_error",
	529: "overloaded_error",
}

// anthropicError writes the API's error body with status.
func anthropicError(w http.ResponseWriter, status int, message string) {
	typ, ok := anthropicErrorTypes[status]
	if !ok {
		typ = "api_error"
		if status < 500 {
			typ = "invalid_request_error"
		}
	}
	writeJSON(w, status, map[string]any{
		"type":  "error",
		"error": map[string]string{"type": typ, "message": message},
	})
}

// anthropicReply is the non-streaming answer: one message with the
// turn's text and tool call.
func anthropicReply(ar anthropicRequest, turn Turn) map[string]any {
	content := []any{}
	if turn.Text != "" || turn.Tool == nil {
		content = append(content, map[string]any{"type": "text", "text": turn.Text})
	}
	stop := "end_turn"
	if turn.Tool != nil {
		content = append(content, map[string]any{
			"type": "tool_use", "id": anthropicID("toolu_"), "name": anthropicToolName(turn.Tool), "input": anthropicBashInput(turn.Tool),
		})
		stop = "tool_use"
	}
	return map[string]any{
		"id": anthropicID("msg_"), "type": "message", "role": "assistant", "model": ar.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": anthropicTokens(len(turn.Text)) + 1},
	}
}

// anthropicBashInput is the input of a Bash tool call as Claude Code's
// schema wants it: the command and the one-line description its permission
// prompt shows.
func anthropicBashInput(tc *ToolCall) map[string]string {
	if tc.Name != "" {
		if tc.Input != nil {
			return tc.Input
		}
		return map[string]string{} // another tool: no input
	}
	return map[string]string{"command": tc.Command, "description": "Run the command the test asked for"}
}

// anthropicToolName is the tool tc calls: Bash unless it names another.
func anthropicToolName(tc *ToolCall) string {
	if tc.Name != "" {
		return tc.Name
	}
	return "Bash"
}

// anthropicID is a message ("msg_") or tool-use ("toolu_") id.
func anthropicID(prefix string) string {
	return prefix + "fake" + strconv.FormatInt(anthropicIDs.Add(1), 10)
}

// anthropicTokens is a rough token count for n bytes.
func anthropicTokens(n int) int { return n/4 + 1 }

// writeJSON writes v as a JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // The agent may have hung up; nothing to do.
}

// sleepOrDone waits d, or until the request is cancelled; it reports
// whether the full wait happened.
func sleepOrDone(req *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-req.Context().Done():
		return false
	}
}
