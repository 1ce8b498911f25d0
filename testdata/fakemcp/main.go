// Command fakemcp is a minimal MCP server (stdio, newline-delimited
// JSON-RPC) for sup's real-agent tests: one tool, "ask", whose call asks
// the human through an elicitation ("Which seat do you want?", a form with
// one string field) and answers with what came back. It lets the loopback
// model stand-in (its MCP: rule) provoke Claude Code's Elicitation hook.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// Question is what the elicitation asks.
const Question = "Which seat do you want?"

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

var out = json.NewEncoder(os.Stdout)

func send(v any) {
	if err := out.Encode(v); err != nil {
		os.Exit(1) // the client is gone
	}
}

func reply(id json.RawMessage, result any) {
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	var pending json.RawMessage // the tools/call waiting for the elicitation's answer
	for in.Scan() {
		var m message
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "fakemcp: bad message:", err)
			continue
		}
		switch {
		case m.Method == "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p) // Best effort: an empty version is answered with ours.
			if p.ProtocolVersion == "" {
				p.ProtocolVersion = "2025-06-18"
			}
			reply(m.ID, map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "fakemcp", "version": "1.0.0"}})
		case m.Method == "tools/list":
			reply(m.ID, map[string]any{"tools": []any{map[string]any{"name": "ask", "description": "Ask the user which seat they want",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}})
		case m.Method == "tools/call":
			pending = m.ID
			send(map[string]any{"jsonrpc": "2.0", "id": "elicit-1", "method": "elicitation/create", "params": map[string]any{
				"message": Question,
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{
					"seat": map[string]any{"type": "string", "title": "Seat"}}, "required": []string{"seat"}},
			}})
		case m.Method == "" && pending != nil && string(m.ID) == `"elicit-1"`:
			text := "elicitation answered: " + string(m.Result)
			if m.Error != nil {
				text = "elicitation failed: " + string(m.Error)
			}
			reply(pending, map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
			pending = nil
		case m.ID != nil && m.Method != "":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
		}
	}
}
