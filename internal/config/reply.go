package config

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The model reader's reading contract lives here, beside Model, because a
// profile's `model_examples:` are readings: internal/plan decodes and
// checks them when it loads the profile, and supervisor/modelread parses
// the model's replies against the same definition (modelread.Reply is
// ModelReply).

// The states of the contract, as the model writes them.
const (
	StateReady             = "READY"
	StateBusy              = "BUSY"
	StateNeedsConfirmation = "NEEDS_CONFIRMATION"
	StateError             = "ERROR"
)

// States lists the valid states, for errors and the prompt.
var States = []string{StateReady, StateBusy, StateNeedsConfirmation, StateError}

// Bounds on a reading: more is not a one-line summary or a dialog's options.
const (
	MaxSummary = 200 // runes
	MaxLabel   = 80  // runes
	MaxActions = 9   // `sup answer` picks them by the digits 1…9
)

// ModelAction is one option the model sees on the screen.
type ModelAction struct {
	Label string `json:"label" yaml:"label"`
	Key   string `json:"key" yaml:"key"`
}

// ModelReply is the model's reading of a screen.
type ModelReply struct {
	State   string        `json:"state" yaml:"state"`
	Summary string        `json:"summary" yaml:"summary"`
	Actions []ModelAction `json:"actions_needed" yaml:"actions_needed"`
}

// Activity is the reply's state in sup's words (needs_confirmation, …).
func (r ModelReply) Activity() string { return strings.ToLower(r.State) }

// ModelExample is a few-shot example from a profile (`model_examples:`): a
// recorded screen and the reading it should get.
type ModelExample struct {
	Screen string     `yaml:"screen"`
	Reply  ModelReply `yaml:"reply"`
}

// Validate checks an example's reply against the contract.
func (e ModelExample) Validate() error {
	if strings.TrimSpace(e.Screen) == "" {
		return fmt.Errorf("screen: empty; give the screen's text as recorded")
	}
	if _, err := e.Reply.Check(); err != nil {
		return fmt.Errorf("reply: %v", err)
	}
	return nil
}

// Check checks a decoded reply against the contract and returns it
// cleaned for display.
func (r ModelReply) Check() (ModelReply, error) {
	valid := false
	for _, s := range States {
		valid = valid || r.State == s
	}
	if !valid {
		return ModelReply{}, fmt.Errorf("state %q: valid states are %s", clip(r.State, 40), strings.Join(States, ", "))
	}
	if strings.ContainsAny(strings.TrimSpace(r.Summary), "\r\n") {
		return ModelReply{}, fmt.Errorf("summary is not one line: %q", clip(r.Summary, 60))
	}
	out := ModelReply{State: r.State, Summary: Clean(r.Summary, MaxSummary)}
	if len(r.Actions) > MaxActions {
		return ModelReply{}, fmt.Errorf("%d actions_needed: at most %d (answered by the digits 1-%d)", len(r.Actions), MaxActions, MaxActions)
	}
	for i, a := range r.Actions {
		label := Clean(a.Label, MaxLabel)
		if label == "" {
			return ModelReply{}, fmt.Errorf("actions_needed[%d]: empty label", i)
		}
		if _, err := ParseKey(a.Key); err != nil {
			return ModelReply{}, fmt.Errorf("actions_needed[%d] (%s): %v", i, label, err)
		}
		out.Actions = append(out.Actions, ModelAction{Label: label, Key: strings.TrimSpace(a.Key)})
	}
	return out, nil
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
