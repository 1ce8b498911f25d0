package ipc

// Methods that act on an open prompt and explain the activity
// (specs/ipc.md, `answer` and `explain`).
const (
	MethodAnswer  = "answer"
	MethodExplain = "explain"
)

// Error codes of `answer`.
const (
	// CodePromptChanged: the session is no longer at the prompt the
	// answer's expect named (answered, timed out, replaced); nothing was
	// typed.
	CodePromptChanged Code = "PROMPT_CHANGED"
	// CodeNoPrompt: the session shows no prompt (activity is not
	// needs_confirmation); nothing was typed.
	CodeNoPrompt Code = "NO_PROMPT"
)

// AnswerParams are the params of `answer`.
type AnswerParams struct {
	Choice         string `msgpack:"choice"`                    // yes, no, always, 1…9, or text for a dialog that takes text
	Expect         string `msgpack:"expect,omitempty"`          // the prompt_id the caller saw: compare-and-swap
	ForceOverride  bool   `msgpack:"force_override,omitempty"`  // answer even while the operator types
	OverrideReason string `msgpack:"override_reason,omitempty"` // required with force_override, as for trigger
	Requester      string `msgpack:"requester,omitempty"`       // who asks (audit)
	AckTimeoutMS   int64  `msgpack:"ack_timeout_ms,omitempty"`  // 0: the trigger ack timeout (8000)
}

// AnswerResult answers `answer`: the keys were typed and the prompt left.
type AnswerResult struct {
	PromptID string `msgpack:"prompt_id" json:"prompt_id"` // the prompt answered
	Choice   string `msgpack:"choice" json:"choice"`
	Dialog   string `msgpack:"dialog" json:"dialog"`   // the dialog kind whose keys were used
	Summary  string `msgpack:"summary" json:"summary"` // what the prompt asked about
	// PromptDetail is the whole command the answer approved (or refused),
	// as State.PromptDetail showed it; "" when the prompt named none.
	PromptDetail string `msgpack:"prompt_detail" json:"prompt_detail"`
	// Option is the label of the option the answer picked ("Yes, and
	// switch to accept edits … for this session"), when the screen showed
	// it; Mode is the mode the whole session switched to by it ("accept
	// edits"; the profile's answers: mode pattern), "" when none.
	Option    string `msgpack:"option,omitempty" json:"option,omitempty"`
	Mode      string `msgpack:"mode,omitempty" json:"mode,omitempty"`
	AckedBy   string `msgpack:"acked_by" json:"acked_by"`
	Activity  string `msgpack:"activity" json:"activity"`     // the activity after the answer
	LatencyMS int64  `msgpack:"latency_ms" json:"latency_ms"` // request → acknowledged
}

// PromptOption is one numbered option of an open prompt, read from the
// screen with the profile's options pattern.
type PromptOption struct {
	Choice string `msgpack:"choice" json:"choice"` // "1"…"9"
	Label  string `msgpack:"label" json:"label"`
}

// ExplainResult answers `explain`: every signal the supervisor holds about
// the session's activity and which one decided it.
type ExplainResult struct {
	Activity string `msgpack:"activity" json:"activity"`
	Reason   string `msgpack:"reason" json:"reason"`
	Summary  string `msgpack:"summary" json:"summary"`
	// PromptDetail is the open prompt's whole command (State.PromptDetail).
	PromptDetail string          `msgpack:"prompt_detail" json:"prompt_detail"`
	Source       string          `msgpack:"source" json:"source"` // the deciding source: lifecycle, hook, stream, screen
	Rule         string          `msgpack:"rule" json:"rule"`     // the deciding rule
	Since        int64           `msgpack:"since" json:"since"`   // when the activity became what it is
	Signals      []ExplainSignal `msgpack:"signals" json:"signals"`
	// Lifecycle and the facts beside the signals.
	Lifecycle    string `msgpack:"lifecycle" json:"lifecycle"`
	PromptID     string `msgpack:"prompt_id" json:"prompt_id"`
	WaitingSince int64  `msgpack:"waiting_since" json:"waiting_since"`
	SkipUntil    int64  `msgpack:"skip_until" json:"skip_until"`
	OperatorBusy bool   `msgpack:"operator_busy" json:"operator_busy"`
	LastInputAt  int64  `msgpack:"last_input_at" json:"last_input_at"`
	Draft        string `msgpack:"draft" json:"draft"`
	LastOutputAt int64  `msgpack:"last_output_at" json:"last_output_at"`
	// Focused is the pane's last focus report (nil: none came).
	Focused *bool `msgpack:"focused" json:"focused"`
	// Screen is the last classification of the screen, nil before one.
	Screen *ExplainScreen `msgpack:"screen" json:"screen"`
	// Process is the pty's foreground process facts (profiles without
	// screen rules), nil otherwise.
	Process *ExplainProcess `msgpack:"process" json:"process"`
	// Model is the model reader's reading of the screen shown now, nil
	// when it has none (off, not asked, failed).
	Model *ExplainModel `msgpack:"model" json:"model"`
	// Progress is the last real progress seen (a hook, a screen change
	// outside the status lines), which a stall is counted from.
	Progress *ExplainProgress `msgpack:"progress" json:"progress"`
}

// ExplainModel is the model reader's reading of the current screen.
type ExplainModel struct {
	State      string        `msgpack:"state" json:"state"` // ready, busy, needs_confirmation, error
	Summary    string        `msgpack:"summary" json:"summary"`
	Options    []ModelOption `msgpack:"options" json:"options"`
	ScreenHash string        `msgpack:"screen_hash" json:"screen_hash"` // the screen's hash, as in the session log
}

// ExplainProgress is what a stall is counted from (specs/detection.md,
// "Stalled").
type ExplainProgress struct {
	At           int64  `msgpack:"at" json:"at"`     // 0: none seen yet
	What         string `msgpack:"what" json:"what"` // "hook:PostToolUse", "screen"
	StallAfterMS int64  `msgpack:"stall_after_ms" json:"stall_after_ms"`
}

// ExplainSignal is the last signal one source sent, applied or not.
type ExplainSignal struct {
	Source   string `msgpack:"source" json:"source"`
	Rule     string `msgpack:"rule" json:"rule"`
	Activity string `msgpack:"activity" json:"activity"`
	Reason   string `msgpack:"reason" json:"reason"`
	Summary  string `msgpack:"summary" json:"summary"`
	At       int64  `msgpack:"at" json:"at"`
	Decided  bool   `msgpack:"decided" json:"decided"` // this signal set the current state's source and rule
}

// ExplainScreen is the screen classifier's last verdict.
type ExplainScreen struct {
	Rule     string   `msgpack:"rule" json:"rule"` // "" when no rule matched
	Activity string   `msgpack:"activity" json:"activity"`
	Lines    []string `msgpack:"lines" json:"lines"` // the screen lines the rule's patterns matched
	At       int64    `msgpack:"at" json:"at"`
}

// ExplainProcess is what the pty's foreground process group says.
type ExplainProcess struct {
	ChildPID        int `msgpack:"child_pid" json:"child_pid"`
	ForegroundGroup int `msgpack:"foreground_group" json:"foreground_group"`
	// The last look at the foreground group (specs/detection.md, "Any
	// program"): reading, working or unknown; the task it rests on and
	// what that task was doing ("read fd 0 (the terminal)", "syscall
	// wait4"…); the rule that decided and why.
	Wait   string `msgpack:"wait" json:"wait"`
	Task   int    `msgpack:"task" json:"task"`
	Call   string `msgpack:"call" json:"call"`
	Rule   string `msgpack:"rule" json:"rule"`
	Detail string `msgpack:"detail" json:"detail"`
}
