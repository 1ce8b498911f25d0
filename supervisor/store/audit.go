//go:build linux

package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/sup-tmux/sup/ipc"
)

// AuditRecord is one line of audit.jsonl: the final outcome of one trigger
// (specs/triggers.md, "Audit"). The prompt itself appears only with
// trigger.audit_prompts; its length and hash always do.
type AuditRecord struct {
	Time                   int64       `json:"time"` // unix ms of the outcome
	TriggerID              string      `json:"trigger_id"`
	ThreadID               string      `json:"thread_id"`
	Session                string      `json:"session"`
	Document               string      `json:"document"`
	Requester              string      `json:"requester"`
	Reason                 string      `json:"reason"`
	Result                 ipc.Outcome `json:"result"`
	ErrorCode              ipc.Code    `json:"error_code"`
	Message                string      `json:"message,omitempty"`
	Attempts               int         `json:"attempts"`
	AckedBy                string      `json:"acked_by"`
	Fallback               string      `json:"fallback"`
	DeliveredAt            int64       `json:"delivered_at"`
	LatencyMS              int64       `json:"latency_ms"`
	Envelope               bool        `json:"envelope"`
	ForceOverrideRequested bool        `json:"force_override_requested"`
	ForceOverrideApplied   bool        `json:"force_override_applied"`
	OverrideIntent         string      `json:"override_intent"`
	OverrideReasonPrefix   string      `json:"override_reason_prefix"`
	OverrideReason         string      `json:"override_reason"`
	CollisionGate          string      `json:"collision_gate"`
	PromptBytes            int         `json:"prompt_bytes"`
	PromptSHA256           string      `json:"prompt_sha256"`
	Prompt                 string      `json:"prompt,omitempty"`
	// Source is "broker" on the routing steps sup route appends to the
	// same file (specs/broker.md); they are not trigger outcomes.
	Source string `json:"source,omitempty"`
}

// AuditFile is the name, in the state dir, of the audit trail.
const AuditFile = "audit.jsonl"

// Audit appends records to $XDG_STATE_HOME/sup/audit.jsonl, shared by every
// session of the user and by the broker's routing steps: one write of one
// line with O_APPEND keeps each line whole among concurrent writers, and
// each line is fsync'd before Append returns (a trigger's outcome is
// returned only once it is on disk). It is the only writer of the file.
type Audit struct {
	path string
	mu   sync.Mutex
	f    *os.File // opened at the first write; reopened after a failure
}

// NewAudit returns the audit trail of stateDir; nothing is opened until the
// first Append.
func NewAudit(stateDir string) *Audit {
	return &Audit{path: filepath.Join(stateDir, AuditFile)}
}

// Append encodes rec (an AuditRecord, or any JSON object such as the
// broker's routing steps) as one line, appends it and syncs it to disk.
func (a *Audit) Append(rec any) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("audit: encode: %w", err)
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		if err := os.MkdirAll(filepath.Dir(a.path), 0o700); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		f, err := os.OpenFile(a.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("audit: open %s: %w", a.path, err)
		}
		a.f = f
	}
	if _, err := a.f.Write(line); err != nil {
		a.reset()
		return fmt.Errorf("audit: write %s: %w", a.path, err)
	}
	if err := a.f.Sync(); err != nil {
		a.reset()
		return fmt.Errorf("audit: sync %s: %w", a.path, err)
	}
	return nil
}

func (a *Audit) reset() {
	a.f.Close() // Best effort: the file failed already.
	a.f = nil
}

// Close closes the file; a later Append opens it again.
func (a *Audit) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f != nil {
		a.reset()
	}
}

// auditTail bounds how much of the audit log a starting supervisor reads to
// rebuild its idempotency table: the recent end is what matters.
const auditTail = 8 << 20

// Recent returns the trigger records of document from the end of the audit log,
// oldest first. A missing log is empty; a torn last line (a crash while
// writing) is skipped.
func (a *Audit) Recent(document string) ([]AuditRecord, error) {
	f, err := os.Open(a.path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit: open %s: %w", a.path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit: stat %s: %w", a.path, err)
	}
	start := max(info.Size()-auditTail, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, start, info.Size()-start))
	if err != nil {
		return nil, fmt.Errorf("audit: read %s: %w", a.path, err)
	}
	if start > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:] // the first line is cut
		}
	}
	var recs []AuditRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r AuditRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Document == document && r.TriggerID != "" && r.Source != "broker" {
			recs = append(recs, r)
		}
	}
	return recs, nil
}
