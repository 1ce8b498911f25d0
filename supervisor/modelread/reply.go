package modelread

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sup-tmux/sup/internal/config"
)

// Reply is the model's reading of a screen and Action one option in it:
// the contract is config.ModelReply, defined once beside the profile's
// model_examples that hold readings too.
type (
	Reply  = config.ModelReply
	Action = config.ModelAction
)

// MaxReply bounds a reply's content: more is not a one-line reading.
const MaxReply = 16 << 10

// ParseReply reads the message content of a chat completion: exactly one
// JSON object in the contract, optionally inside one Markdown code fence
// (models add them even when told not to; the fence carries nothing).
// Anything else — prose, two objects, unknown fields, a state not in
// States — is an error of kind FailNotJSON or FailBadReply.
func ParseReply(content string) (Reply, error) {
	if len(content) > MaxReply {
		return Reply{}, &Error{Kind: FailBadReply, Err: fmt.Errorf("reply of %d bytes, over the %d a one-line reading needs", len(content), MaxReply)}
	}
	body := unfence(strings.TrimSpace(content))
	if !strings.HasPrefix(body, "{") {
		return Reply{}, &Error{Kind: FailNotJSON, Err: fmt.Errorf("reply is not a JSON object: %q", clip(body, 60))}
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	var raw Reply
	if err := dec.Decode(&raw); err != nil {
		return Reply{}, &Error{Kind: FailNotJSON, Err: fmt.Errorf("reply is not the JSON asked for: %v", err)}
	}
	if rest := strings.TrimSpace(body[dec.InputOffset():]); rest != "" {
		return Reply{}, &Error{Kind: FailNotJSON, Err: fmt.Errorf("reply has text after the JSON object: %q", clip(rest, 40))}
	}
	r, err := raw.Check()
	if err != nil {
		return Reply{}, &Error{Kind: FailBadReply, Err: err}
	}
	return r, nil
}

// unfence strips one surrounding Markdown code fence (```json … ```).
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	inner := s[3 : len(s)-3]
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.ContainsAny(inner[:nl], "{\"") {
		inner = inner[nl+1:] // the info string: json
	}
	return strings.TrimSpace(inner)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}
