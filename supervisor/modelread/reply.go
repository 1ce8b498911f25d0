package modelread

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The states of the contract, as the model writes them.
const (
	StateReady             = "READY"
	StateBusy              = "BUSY"
	StateNeedsConfirmation = "NEEDS_CONFIRMATION"
	StateError             = "ERROR"
)

// States lists the valid states, for errors and the prompt.
var States = []string{StateReady, StateBusy, StateNeedsConfirmation, StateError}

// Bounds on a reply: more is not a one-line summary or a dialog's options.
const (
	MaxSummary = 200 // runes
	MaxLabel   = 80  // runes
	MaxActions = 9   // `sup answer` picks them by the digits 1…9
	MaxReply   = 16 << 10
)

// Action is one option the model sees on the screen.
type Action struct {
	Label string `json:"label" yaml:"label"`
	Key   string `json:"key" yaml:"key"`
}

// Reply is the model's reading of a screen.
type Reply struct {
	State   string   `json:"state" yaml:"state"`
	Summary string   `json:"summary" yaml:"summary"`
	Actions []Action `json:"actions_needed" yaml:"actions_needed"`
}

// Activity is the reply's state in sup's words (needs_confirmation, …).
func (r Reply) Activity() string { return strings.ToLower(r.State) }

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
	r, err := raw.validate()
	if err != nil {
		return Reply{}, &Error{Kind: FailBadReply, Err: err}
	}
	return r, nil
}

// validate checks a decoded reply and returns it cleaned for display.
func (r Reply) validate() (Reply, error) {
	valid := false
	for _, s := range States {
		valid = valid || r.State == s
	}
	if !valid {
		return Reply{}, fmt.Errorf("state %q: valid states are %s", clip(r.State, 40), strings.Join(States, ", "))
	}
	if strings.ContainsAny(strings.TrimSpace(r.Summary), "\r\n") {
		return Reply{}, fmt.Errorf("summary is not one line: %q", clip(r.Summary, 60))
	}
	out := Reply{State: r.State, Summary: Clean(r.Summary, MaxSummary)}
	if len(r.Actions) > MaxActions {
		return Reply{}, fmt.Errorf("%d actions_needed: at most %d (answered by the digits 1-%d)", len(r.Actions), MaxActions, MaxActions)
	}
	for i, a := range r.Actions {
		label := Clean(a.Label, MaxLabel)
		if label == "" {
			return Reply{}, fmt.Errorf("actions_needed[%d]: empty label", i)
		}
		if _, err := ParseKey(a.Key); err != nil {
			return Reply{}, fmt.Errorf("actions_needed[%d] (%s): %v", i, label, err)
		}
		out.Actions = append(out.Actions, Action{Label: label, Key: strings.TrimSpace(a.Key)})
	}
	return out, nil
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

// Clean makes model text safe to show on one line: control characters,
// bidi overrides and other format characters become spaces or vanish,
// runs of spaces collapse, and it is cut to max runes.
func Clean(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == utf8.RuneError, unicode.Is(unicode.Cf, r):
			continue // bidi controls, zero-width characters
		case unicode.IsControl(r) || unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if utf8.RuneCountInString(out) > max {
		out = string([]rune(out)[:max-1]) + "…"
	}
	return out
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}
