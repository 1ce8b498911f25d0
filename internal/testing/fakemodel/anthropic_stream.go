package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// anthropicStreamStep is the pause between streamed chunks when a turn has
// a Delay: short enough that the agent's screen visibly moves, long enough
// not to flood it with events.
const anthropicStreamStep = 100 * time.Millisecond

// anthropicSSE writes server-sent events, flushing each so the agent sees
// it at once.
type anthropicSSE struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// event writes one event. A write error means the agent hung up; the
// handler notices through the request's context.
func (e anthropicSSE) event(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(fmt.Sprintf("fakemodel: marshal %s event: %v", name, err)) // our own maps: a bug
	}
	fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", name, b)
	_ = e.rc.Flush()
}

// streamAnthropic streams turn as the Messages API does: message_start, a
// text block, maybe a tool_use block, message_delta with the stop reason,
// message_stop. The text goes in chunks spread over turn.Delay.
func streamAnthropic(w http.ResponseWriter, req *http.Request, ar anthropicRequest, turn Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := anthropicSSE{w: w, rc: http.NewResponseController(w)}
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": anthropicID("msg_"), "type": "message", "role": "assistant", "model": ar.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 1},
	}})
	e.event("ping", map[string]string{"type": "ping"})

	index := 0
	if turn.Text != "" || turn.Tool == nil {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]string{"type": "text", "text": ""}})
		n := 3 // a few pieces even without a delay, so streaming is exercised
		if turn.Delay > 0 {
			n = max(1, int(turn.Delay/anthropicStreamStep))
		}
		parts := chunks(turn.Text, n)
		pause := turn.Delay / time.Duration(len(parts))
		for _, p := range parts {
			if !sleepOrDone(req, pause) {
				return
			}
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]string{"type": "text_delta", "text": p}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	stop := "end_turn"
	if turn.Tool != nil {
		stop = "tool_use"
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": anthropicID("toolu_"), "name": anthropicToolName(turn.Tool), "input": map[string]any{}}})
		input, _ := json.Marshal(anthropicBashInput(turn.Tool)) // strings only: cannot fail
		// Two pieces, as the real API sends partial JSON.
		for _, p := range chunks(string(input), 2) {
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]string{"type": "input_json_delta", "partial_json": p}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": anthropicTokens(len(turn.Text)) + 1}})
	e.event("message_stop", map[string]string{"type": "message_stop"})
}
