package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sup-tmux/sup/internal/safetext"
)

// AuditRecord is one line of audit.jsonl: the final outcome of one trigger
// (specs/triggers.md, "Audit"). The prompt itself appears only with
// trigger.audit_prompts; its length and hash always do.
type AuditRecord struct {
	Time      int64  `json:"time"` // unix ms of the outcome
	TriggerID string `json:"trigger_id"`
	ThreadID  string `json:"thread_id"`
	Session   string `json:"session"`
	Document  string `json:"document"`
	Requester string `json:"requester"`
	// Caller is who asked (an *ipc.Caller), decided by the supervisor
	// from the kernel's peer credentials (Requester is the client's own
	// words); the store writes it as given and never interprets it.
	Caller                 any    `json:"caller,omitempty"`
	Reason                 string `json:"reason"`
	Result                 string `json:"result"`     // an ipc.Outcome
	ErrorCode              string `json:"error_code"` // an ipc.Code
	Message                string `json:"message,omitempty"`
	Attempts               int    `json:"attempts"`
	AckedBy                string `json:"acked_by"`
	Fallback               string `json:"fallback"`
	DeliveredAt            int64  `json:"delivered_at"`
	LatencyMS              int64  `json:"latency_ms"`
	Envelope               bool   `json:"envelope"`
	ForceOverrideRequested bool   `json:"force_override_requested"`
	ForceOverrideApplied   bool   `json:"force_override_applied"`
	OverrideIntent         string `json:"override_intent"`
	OverrideReasonPrefix   string `json:"override_reason_prefix"`
	OverrideReason         string `json:"override_reason"`
	CollisionGate          string `json:"collision_gate"`
	PromptBytes            int    `json:"prompt_bytes"`
	PromptSHA256           string `json:"prompt_sha256"`
	Prompt                 string `json:"prompt,omitempty"`
	// Source is "broker" on the routing steps sup route appends to the
	// same file (specs/broker.md); they are not trigger outcomes.
	Source string `json:"source,omitempty"`
}

// Append encodes rec (an AuditRecord, or any JSON object such as the
// broker's routing steps) as one line and appends it (appendLine: on disk
// exactly once when Append returns nil).
func (a *Audit) Append(rec any) error {
	// safetext's escapes: the file holds agents' text (summaries, prompt
	// ids, requesters) and people read it with tail and cat; C1, DEL and
	// bidi runes are written as \uXXXX, which decode to the same strings.
	line, err := safetext.Marshal(rec)
	if err != nil {
		return fmt.Errorf("audit: encode: %w", err)
	}
	return a.appendLine(line)
}

// Triggers returns the trigger records of document written since, oldest
// first, read across the rotated files (ReadAuditSince). Lines that do not
// hold document's JSON encoding are skipped before they are decoded: a
// restart reads a window of every session's outcomes to find its own.
func (a *Audit) Triggers(document string, since time.Time) ([]AuditRecord, error) {
	doc, err := safetext.Marshal(document) // as Append wrote it
	if err != nil {
		return nil, fmt.Errorf("audit: encode document: %w", err)
	}
	needle := append([]byte(`"document":`), doc...)
	var recs []AuditRecord
	err = ReadAuditSince(a.dir, since, func(line []byte) {
		if !bytes.Contains(line, needle) {
			return
		}
		var r AuditRecord
		if json.Unmarshal(line, &r) == nil && r.Document == document && r.TriggerID != "" && r.Source != "broker" &&
			!time.UnixMilli(r.Time).Before(since) {
			recs = append(recs, r)
		}
	})
	return recs, err
}
