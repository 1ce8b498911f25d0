package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// chatRoutes serves the OpenAI chat-completions API as sup's model reader
// uses it (supervisor/modelread): one non-streaming POST
// /v1/chat/completions per screen read, so the reader's endpoint is
// URL+"/v1". A queued Turn decides the reply: Text is the message content
// (the JSON a test wants the model to answer, or prose), Delay waits before
// answering, Status fails with that HTTP status, Hang never answers. With
// nothing queued the stand-in reads the screen itself: NEEDS_CONFIRMATION
// with its last non-blank line as summary and no options (ChatDefault).
func (s *Server) chatRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/chat/completions", s.chatCompletions)
}

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// userText is the newest user message: the screen the reader asks about.
func (q chatRequest) userText() string {
	for i := len(q.Messages) - 1; i >= 0; i-- {
		if q.Messages[i].Role == "user" {
			return q.Messages[i].Content
		}
	}
	return ""
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, openaiMaxBody))
	if err != nil {
		openaiError(w, http.StatusBadRequest, fmt.Sprintf("reading body: %v", err))
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.decide(Request{API: "chat", Method: r.Method, Path: r.URL.Path, Body: body, Side: true})
		openaiError(w, http.StatusBadRequest, fmt.Sprintf("parsing body: %v", err))
		return
	}
	text := req.userText()
	turn := s.decideChat(Request{API: "chat", Method: r.Method, Path: r.URL.Path, Body: body, UserText: text}, text)
	if turn.Delay > 0 && !sleepOrDone(r, turn.Delay) {
		return
	}
	switch {
	case turn.Status != 0:
		openaiError(w, turn.Status, fmt.Sprintf("fakemodel: scripted failure with status %d", turn.Status))
	case turn.Hang:
		<-r.Context().Done()
	default:
		writeJSON(w, http.StatusOK, map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": turn.Text}}},
		})
	}
}

// decideChat is decide with the chat default instead of the agent rules.
func (s *Server) decideChat(r Request, screen string) Turn {
	s.mu.Lock()
	queued := len(s.queue) > 0
	s.mu.Unlock()
	if queued {
		return s.decide(r)
	}
	r.Side = true // consumes nothing; logged with its default turn below
	s.decide(r)
	return Turn{Text: ChatDefault(screen)}
}

// ChatDefault is the stand-in's own reading of a screen message: a
// question, summarised by its last non-blank line.
func ChatDefault(screen string) string {
	summary := ""
	for _, l := range strings.Split(screen, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "<<<" && l != ">>>" {
			summary = l
		}
	}
	b, _ := json.Marshal(map[string]any{"state": "NEEDS_CONFIRMATION", "summary": summary, "actions_needed": []any{}})
	return string(b)
}

// Count is the number of logged requests of api ("chat": the model
// reader's calls).
func (s *Server) Count(api string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if r.API == api {
			n++
		}
	}
	return n
}
