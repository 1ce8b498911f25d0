package store

// KindAnswer marks an answer's line in audit.jsonl (trigger lines have no
// kind; the idempotency table skips lines without a trigger id).
const KindAnswer = "answer"

// AnswerRecord is one line of audit.jsonl: one `answer` to a prompt,
// refused or not (specs/triggers.md, "Audit").
type AnswerRecord struct {
	Time      int64  `json:"time"` // unix ms of the outcome
	Kind      string `json:"kind"` // KindAnswer
	Session   string `json:"session"`
	Document  string `json:"document"`
	Requester string `json:"requester"`
	Caller    any    `json:"caller,omitempty"` // who answered (an *ipc.Caller), as the supervisor decided it
	Choice    string `json:"choice"`
	PromptID  string `json:"prompt_id"` // the prompt open when it was checked, "" if none
	Expect    string `json:"expect"`    // the prompt id the caller saw, "" if not given
	Summary   string `json:"summary"`   // the command or question
	Reason    string `json:"reason"`
	Dialog    string `json:"dialog"` // the dialog kind whose keys were used
	// Option is the label of the option the answer picked, when the
	// screen showed it; Mode the mode the whole session switched to by
	// it ("accept edits"), "" when none.
	Option    string `json:"option,omitempty"`
	Mode      string `json:"mode,omitempty"`
	Outcome   string `json:"outcome"` // answered, refused (nothing typed), failed (typed, not acknowledged)
	ErrorCode string `json:"error_code"`
	Message   string `json:"message,omitempty"`
	AckedBy   string `json:"acked_by"`
	Typed     bool   `json:"typed"`
	LatencyMS int64  `json:"latency_ms"`

	ForceOverrideRequested bool   `json:"force_override_requested"`
	ForceOverrideApplied   bool   `json:"force_override_applied"`
	OverrideIntent         string `json:"override_intent"`
	OverrideReasonPrefix   string `json:"override_reason_prefix"`
	OverrideReason         string `json:"override_reason"`
	CollisionGate          string `json:"collision_gate"`
}

// KindInject marks an inject's line in audit.jsonl.
const KindInject = "inject"

// InjectRecord is one line of audit.jsonl: one raw `inject`, written or
// refused (the bytes themselves are not kept; their count and hash are).
type InjectRecord struct {
	Time      int64  `json:"time"`
	Kind      string `json:"kind"` // KindInject
	Session   string `json:"session"`
	Document  string `json:"document"`
	Caller    any    `json:"caller"`
	Bytes     int    `json:"bytes"`
	SHA256    string `json:"sha256"`
	Submit    bool   `json:"submit"`
	Outcome   string `json:"outcome"` // written, refused
	ErrorCode string `json:"error_code"`
	Message   string `json:"message,omitempty"`
}

// KindRefused marks the audit line of a `stop`, `restart`, `resume`,
// `skip` or `unblock` the policy refused (specs/security.md, "Consent is
// the operator's"). Refused triggers, answers and injects have their own
// lines; a refused `hook` is only logged (rate-limited): hooks fire on
// every tool call.
const KindRefused = "refused"

// RefusedRecord is one line of audit.jsonl: one call refused NOT_ALLOWED.
type RefusedRecord struct {
	Time      int64  `json:"time"`
	Kind      string `json:"kind"` // KindRefused
	Session   string `json:"session"`
	Document  string `json:"document"`
	Method    string `json:"method"`
	Caller    any    `json:"caller"`
	ErrorCode string `json:"error_code"` // ipc.CodeNotAllowed
	Message   string `json:"message"`
}
