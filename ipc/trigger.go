package ipc

// Outcome is what became of a trigger (TriggerResult.Result); on the wire
// a plain string.
type Outcome string

// Trigger outcomes (specs/triggers.md). Accepted is only ever the
// immediate answer of a trigger sent without wait whose delivery is under
// way; the final outcome follows as a "trigger" event and in state.
const (
	OutcomeDelivered     Outcome = "delivered"
	OutcomeAlreadyActive Outcome = "already_active"
	OutcomeDeferred      Outcome = "deferred"
	OutcomeTimeout       Outcome = "timeout"
	OutcomeFailed        Outcome = "failed"
	// OutcomeCancelled: cancel_trigger took it back before any byte was
	// typed (error_code TRIGGER_CANCELLED, the message naming who).
	OutcomeCancelled Outcome = "cancelled"
	OutcomeAccepted  Outcome = "accepted"
)

// TriggerParams are the params of `trigger`: a prompt to deliver into the
// live agent under the collision, rate and loop policies.
type TriggerParams struct {
	TriggerID      string `msgpack:"trigger_id"`                // required; idempotency key, sanitised to [A-Za-z0-9._:-]
	ThreadID       string `msgpack:"thread_id,omitempty"`       // rate limits and loop guards count per thread
	Reason         string `msgpack:"reason,omitempty"`          // shown in the envelope and the audit
	Prompt         string `msgpack:"prompt"`                    // required; the text, sanitised before writing
	AckTimeoutMS   int64  `msgpack:"ack_timeout_ms,omitempty"`  // 0: the configured default (8000)
	ForceOverride  bool   `msgpack:"force_override,omitempty"`  // deliver despite operator_busy
	OverrideReason string `msgpack:"override_reason,omitempty"` // required with force_override: "human_override:…" or "coordinator_override:…"
	Requester      string `msgpack:"requester,omitempty"`       // who asks (audit)
	Envelope       *bool  `msgpack:"envelope,omitempty"`        // nil: on
	Wait           bool   `msgpack:"wait,omitempty"`            // block until a final outcome
	// Answering: the caller read the agent's open question and this is its
	// answer; without it a trigger to a session whose reason is asked is
	// held (AGENT_ASKED) until the human answers (specs/triggers.md).
	Answering bool `msgpack:"answering,omitempty"`
}

// TriggerResult answers `trigger` and is the data of the "trigger" event.
type TriggerResult struct {
	TriggerID       string  `msgpack:"trigger_id" json:"trigger_id"`
	ThreadID        string  `msgpack:"thread_id" json:"thread_id"`
	Result          Outcome `msgpack:"result" json:"result"`
	ErrorCode       Code    `msgpack:"error_code,omitempty" json:"error_code,omitempty"`
	Message         string  `msgpack:"message,omitempty" json:"message,omitempty"`
	DeliveryBackend string  `msgpack:"delivery_backend" json:"delivery_backend"` // "pty"
	DeliveredAt     int64   `msgpack:"delivered_at,omitempty" json:"delivered_at,omitempty"`
	DeferredUntil   int64   `msgpack:"deferred_until,omitempty" json:"deferred_until,omitempty"`
	Attempts        int     `msgpack:"attempts" json:"attempts"`
	AckedBy         string  `msgpack:"acked_by,omitempty" json:"acked_by,omitempty"` // hook, activity, marker
	Fallback        string  `msgpack:"fallback,omitempty" json:"fallback,omitempty"` // resume, fresh: how a stopped child was brought back
	Repeat          bool    `msgpack:"repeat,omitempty" json:"repeat,omitempty"`     // a known trigger_id: this is its first outcome
	AuditError      string  `msgpack:"audit_error,omitempty" json:"audit_error,omitempty"`
}

// PendingTriggers answers `pending_triggers`: the session's triggers not
// yet finished, the one being delivered first, then the queue in order.
type PendingTriggers struct {
	Triggers []PendingTrigger `msgpack:"triggers" json:"triggers"`
}

// PendingTrigger is one trigger on its way.
type PendingTrigger struct {
	TriggerID   string `msgpack:"trigger_id" json:"trigger_id"`
	ThreadID    string `msgpack:"thread_id" json:"thread_id"`
	Requester   string `msgpack:"requester,omitempty" json:"requester,omitempty"`
	Reason      string `msgpack:"reason,omitempty" json:"reason,omitempty"`
	QueuedAt    int64  `msgpack:"queued_at" json:"queued_at"`
	State       string `msgpack:"state" json:"state"`                                   // queued, deferred, delivering
	ErrorCode   Code   `msgpack:"error_code,omitempty" json:"error_code,omitempty"`     // with deferred: why
	Message     string `msgpack:"message,omitempty" json:"message,omitempty"`           // with deferred: why, in words
	NextLookAt  int64  `msgpack:"next_look_at,omitempty" json:"next_look_at,omitempty"` // with deferred
	PromptBytes int    `msgpack:"prompt_bytes" json:"prompt_bytes"`                     // of the prompt as sent
	PromptHead  string `msgpack:"prompt_head,omitempty" json:"prompt_head,omitempty"`   // its first line, sanitised, at most 40 characters
}

// CancelTriggerParams are the params of `cancel_trigger`.
type CancelTriggerParams struct {
	TriggerID string `msgpack:"trigger_id"`
	Requester string `msgpack:"requester,omitempty"` // who cancels, for the audit's message
}

// CancelTriggerResult answers `cancel_trigger`.
type CancelTriggerResult struct {
	TriggerID string `msgpack:"trigger_id" json:"trigger_id"`
	Cancelled bool   `msgpack:"cancelled" json:"cancelled"` // taken back: nothing was typed
	State     string `msgpack:"state" json:"state"`         // cancelled; written (too late); or the finished outcome
	Message   string `msgpack:"message,omitempty" json:"message,omitempty"`
}

// UnblockParams are the params of `unblock`: lift a thread's loop guard.
type UnblockParams struct {
	ThreadID string `msgpack:"thread_id"`
}

// UnblockResult answers `unblock`.
type UnblockResult struct {
	ThreadID string `msgpack:"thread_id" json:"thread_id"`
	Blocked  bool   `msgpack:"was_blocked" json:"was_blocked"` // the thread was blocked before
}

// SkipParams are the params of `skip`: move this session to the queue's
// tail and make it ineligible as head for the cooldown.
type SkipParams struct {
	CooldownMS int64 `msgpack:"cooldown_ms,omitempty"` // 0: the configured default (5 min)
}

// SkipResult answers `skip`.
type SkipResult struct {
	WaitingSince int64 `msgpack:"waiting_since" json:"waiting_since"` // the new, later, queue position
	SkipUntil    int64 `msgpack:"skip_until" json:"skip_until"`
}

// Error codes of trigger outcomes besides the general ones above
// (specs/triggers.md).
const (
	// CodeTriggerCancelled: the child the trigger was being delivered to
	// ended (restart, crash, stop) before it acknowledged; nothing is typed
	// into its successor.
	CodeTriggerCancelled Code = "TRIGGER_CANCELLED"
	// CodeAgentBusy: the agent is mid-turn or shows a prompt; the trigger
	// waits for it to be ready (a deferral reason, see specs/triggers.md).
	CodeAgentBusy Code = "AGENT_BUSY"
	// CodeAgentAsked: the agent's turn ended with a question to the human
	// (reason asked); the trigger is held until the human answers it,
	// unless the caller says it is answering or forces it; the message
	// holds the question (specs/triggers.md).
	CodeAgentAsked Code = "AGENT_ASKED"
	// CodeSubmitWithheld: a prompt or dialog opened in the agent, the
	// human typed or sup began to stop between the paste and its Enter; the
	// text was typed and the Enter withheld, so it answered nothing. Never
	// retried: the text may sit in the agent's input box (specs/triggers.md).
	CodeSubmitWithheld Code = "SUBMIT_WITHHELD"
)

// MethodMetrics answers the supervisor's counters and histograms.
const MethodMetrics = "metrics"

// MetricsResult answers `metrics`: counters by name (trigger_requests_total,
// trigger_delivered_total, …) and histograms (trigger_latency_ms, …).
type MetricsResult struct {
	Counters   map[string]int64     `msgpack:"counters" json:"counters"`
	Histograms map[string]Histogram `msgpack:"histograms" json:"histograms"`
}

// Histogram is a cumulative histogram: Counts[i] observations were at most
// Bounds[i]; the last count is every observation (+Inf).
type Histogram struct {
	Bounds []float64 `msgpack:"bounds" json:"bounds"`
	Counts []int64   `msgpack:"counts" json:"counts"` // len(Bounds)+1
	Sum    float64   `msgpack:"sum" json:"sum"`
	Count  int64     `msgpack:"count" json:"count"`
}
