package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// openaiIDs numbers the ids of responses, items and calls, so every id the
// agent sees in one process is unique.
var openaiIDs atomic.Int64

func openaiID(prefix string) string {
	return fmt.Sprintf("%s_fake%06d", prefix, openaiIDs.Add(1))
}

// openaiStream writes one streamed response as server-sent events, in the
// order the Responses API uses: response.created, response.in_progress,
// then per output item output_item.added, its deltas and
// output_item.done, and last response.completed. Codex treats a stream
// that ends before response.completed as a dropped connection and retries.
type openaiStream struct {
	w       http.ResponseWriter
	r       *http.Request
	model   string
	inBytes int
	id      string
	seq     int
	output  []any // the items done so far, for response.completed
	outText int   // bytes of text produced, for usage
	started bool
}

func newOpenAIStream(w http.ResponseWriter, r *http.Request, model string, inBytes int) *openaiStream {
	return &openaiStream{w: w, r: r, model: model, inBytes: inBytes, id: openaiID("resp")}
}

// event writes one SSE event and flushes it; data gets type and
// sequence_number added.
func (s *openaiStream) event(typ string, data map[string]any) {
	data["type"] = typ
	data["sequence_number"] = s.seq
	s.seq++
	b, _ := json.Marshal(data)
	_, _ = fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", typ, b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// response is the response object the lifecycle events carry.
func (s *openaiStream) response(status string, usage any) map[string]any {
	output := s.output
	if output == nil {
		output = []any{}
	}
	return map[string]any{
		"id": s.id, "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": s.model, "output": output, "usage": usage,
		"error": nil, "incomplete_details": nil,
	}
}

// start sends the headers, response.created and response.in_progress.
func (s *openaiStream) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	s.w.WriteHeader(http.StatusOK)
	s.event("response.created", map[string]any{"response": s.response("in_progress", nil)})
	s.event("response.in_progress", map[string]any{"response": s.response("in_progress", nil)})
}

// message streams an assistant message with text, spread over delay. It
// returns false if the agent hung up before the end.
func (s *openaiStream) message(text string, delay time.Duration) bool {
	idx := len(s.output)
	id := openaiID("msg")
	s.event("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{
		"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{},
	}})
	part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
	s.event("response.content_part.added", map[string]any{"output_index": idx, "item_id": id, "content_index": 0, "part": part})
	pieces := chunks(text, streamPieces(text, delay))
	for i, piece := range pieces {
		if i > 0 && delay > 0 {
			select {
			case <-time.After(delay / time.Duration(len(pieces)-1)):
			case <-s.r.Context().Done():
				return false
			}
		}
		s.event("response.output_text.delta", map[string]any{
			"output_index": idx, "item_id": id, "content_index": 0, "delta": piece, "logprobs": []any{},
		})
	}
	s.event("response.output_text.done", map[string]any{"output_index": idx, "item_id": id, "content_index": 0, "text": text, "logprobs": []any{}})
	done := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
	s.event("response.content_part.done", map[string]any{"output_index": idx, "item_id": id, "content_index": 0, "part": done})
	item := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{done}}
	s.event("response.output_item.done", map[string]any{"output_index": idx, "item": item})
	s.output = append(s.output, item)
	s.outText += len(text)
	return true
}

// streamPieces is how many deltas text is streamed in: a few without a
// delay (so the agent assembles deltas), about one per 100 ms with one.
func streamPieces(text string, delay time.Duration) int {
	n := 3
	if delay > 0 {
		n = max(2, int(delay/(100*time.Millisecond))+1)
	}
	return min(n, max(len(text), 1))
}

// execCommandArgs are the arguments the stand-in gives Codex's shell tool,
// exec_command: sandbox_permissions require_escalated asks to run outside
// the sandbox, which under approval_policy on-request makes Codex ask the
// person first.
func execCommandArgs(command string) map[string]any {
	return map[string]any{
		"cmd":                 command,
		"sandbox_permissions": "require_escalated",
		"justification":       "The stand-in model wants to run: " + command,
	}
}

// execCommand emits a function call of exec_command running command.
func (s *openaiStream) execCommand(command string) {
	idx := len(s.output)
	args, _ := json.Marshal(execCommandArgs(command))
	id, callID := openaiID("fc"), openaiID("call")
	added := map[string]any{"id": id, "type": "function_call", "status": "in_progress", "name": "exec_command", "call_id": callID, "arguments": ""}
	s.event("response.output_item.added", map[string]any{"output_index": idx, "item": added})
	s.event("response.function_call_arguments.delta", map[string]any{"output_index": idx, "item_id": id, "delta": string(args)})
	s.event("response.function_call_arguments.done", map[string]any{"output_index": idx, "item_id": id, "arguments": string(args)})
	item := map[string]any{"id": id, "type": "function_call", "status": "completed", "name": "exec_command", "call_id": callID, "arguments": string(args)}
	s.event("response.output_item.done", map[string]any{"output_index": idx, "item": item})
	s.output = append(s.output, item)
	s.outText += len(args)
}

// complete sends response.completed with a token usage estimated at four
// bytes a token.
func (s *openaiStream) complete() {
	in, out := s.inBytes/4+1, s.outText/4+1
	usage := map[string]any{
		"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": in + out,
	}
	s.event("response.completed", map[string]any{"response": s.response("completed", usage)})
}
