package desk

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// defaultThread names the thread of a trigger that gives none.
const defaultThread = "default"

// Desk is one session's trigger desk (see the package comment).
type Desk struct {
	cfg   trigger.Config
	audit *store.Audit
	sess  Port
	log   *slog.Logger
	kick  chan struct{} // something a waiting trigger may wait for changed

	mu      sync.Mutex // guards the fields below, and nothing else
	table   *trigger.Table
	guard   *trigger.Guard
	queue   []*job
	active  *job // the one being delivered
	counts  map[string]int
	metrics *metrics
	notes   []ipc.TriggerProgress // trigger_progress events to publish once d.mu is released
	// lineOut is the last line-mode delivery whose output is not judged
	// yet, lineMarks how many produced output: part of the progress
	// token (lineProgress).
	lineOut   *lineDelivery
	lineMarks int
}

// job is one trigger on its way.
type job struct {
	id, thread string
	p          ipc.TriggerParams
	caller     ipc.Caller // who asked, as the socket decided (never the client's words)
	text       string     // what is pasted: the sanitised prompt, in its envelope unless turned off
	envelope   bool       // the text is in the envelope
	foreground int        // the pty's foreground group when it was written (line mode)
	outBefore  int64      // the session's output bytes when it was written (line mode)
	hash       string     // of the sanitised prompt
	override   trigger.Override
	queued     time.Time
	ackTimeout time.Duration

	deferred bool      // was deferred at least once
	waitCode ipc.Code  // why it waits now ("" while not waiting); a change is a trigger_progress event
	waitWhy  string    // the same in words
	waitNext time.Time // when it is looked at next
	// written: a byte of it went to the agent (set under d.mu by open);
	// from then on it cannot be cancelled. cancelled: Cancel asked, before
	// any byte; cancelBy says who. cancel is closed then, to wake a wait.
	written, cancelled bool
	cancelBy           string
	cancel             chan struct{}
	gate               string // the collision gate it passed
	applied            bool   // the force bypassed a busy operator or an open question
	question           string // the agent's open question when the job last looked
	done               chan struct{}
	result             ipc.TriggerResult // final, once done is closed
}

// New returns the desk of sess: cfg's zero fields take their defaults,
// outcomes go to audit, and the desk logs to log.
func New(cfg trigger.Config, audit *store.Audit, sess Port, log *slog.Logger) *Desk {
	cfg = cfg.WithDefaults()
	return &Desk{
		cfg: cfg, audit: audit, sess: sess, log: log, kick: make(chan struct{}, 1),
		table: trigger.NewTable(cfg), guard: trigger.NewGuard(cfg),
		counts: map[string]int{}, metrics: newMetrics(),
	}
}

// Poke makes the desk's delivery goroutine look again at once: a new
// trigger was queued, an answer went in. The session's own changes
// (activity, the draft, the screen, a new child) come through
// Port.Changed, which every wait of the desk watches.
func (d *Desk) Poke() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// Restore fills the idempotency table from the audit trail's records of
// document within RememberFor, read across the rotated files, so that a
// trigger id repeated after a sup restart still gets its first outcome. It
// returns how many it restored.
func (d *Desk) Restore(document string, now time.Time) (int, error) {
	recs, err := d.audit.Triggers(document, now.Add(-d.cfg.RememberFor))
	if err != nil {
		return 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, r := range recs {
		at := time.UnixMilli(r.Time)
		if ipc.Code(r.ErrorCode) == ipc.CodeThreadAutoBlocked {
			continue
		}
		d.table.Finish(r.TriggerID, ipc.TriggerResult{
			TriggerID: r.TriggerID, ThreadID: r.ThreadID, Result: ipc.Outcome(r.Result), ErrorCode: ipc.Code(r.ErrorCode), Message: r.Message,
			DeliveryBackend: "pty", DeliveredAt: r.DeliveredAt, Attempts: r.Attempts, AckedBy: r.AckedBy, Fallback: r.Fallback,
		}, at)
		n++
	}
	return n, nil
}

// Trigger validates a trigger, answers repeats from the idempotency table
// and refuses blocked threads at once; anything else is queued for the
// delivery goroutine (Run). With p.Wait it answers the final outcome;
// without, accepted or deferred at once.
func (d *Desk) Trigger(ctx context.Context, p ipc.TriggerParams) (ipc.TriggerResult, error) {
	f := d.sess.Facts(time.Now())
	j, err := d.newJob(p, f.Envelope)
	if err != nil {
		return ipc.TriggerResult{}, err
	}
	j.caller, _ = ipc.CallerFromContext(ctx)
	if err := d.consent(j); err != nil {
		j.gate = trigger.GateNotEvaluated
		e := ipc.AsError(err)
		d.finish(j, ipc.TriggerResult{Result: ipc.OutcomeFailed, ErrorCode: e.Code, Message: e.Message})
		return ipc.TriggerResult{}, err
	}
	now := time.Now()
	// Read from the session before the desk's lock: the desk never holds
	// it while calling the session.
	f = d.sess.Facts(now)
	g, progress := f.Gates, f.Progress+d.lineProgress(f.Ack.OutputBytes)
	d.mu.Lock()
	d.metrics.inc("trigger_requests_total")
	if o, ok := d.table.Lookup(j.id, now); ok {
		if !o.Final {
			d.metrics.inc("trigger_already_active_total")
			d.mu.Unlock()
			return ipc.TriggerResult{TriggerID: j.id, ThreadID: j.thread, Result: ipc.OutcomeAlreadyActive, DeliveryBackend: "pty",
				Message: "a trigger with this id is under way"}, nil
		}
		d.mu.Unlock()
		r := o.Data.(ipc.TriggerResult)
		r.Repeat = true
		d.log.Info("trigger_repeat", "trigger_id", j.id, "result", r.Result)
		return r, nil
	}
	blocked, why := d.guard.Blocked(j.thread)
	if !blocked {
		blocked, why = d.guard.Count(j.thread, j.hash, progress)
	}
	if blocked {
		d.mu.Unlock()
		j.gate = trigger.GateNotEvaluated
		d.finish(j, ipc.TriggerResult{Result: ipc.OutcomeFailed, ErrorCode: ipc.CodeThreadAutoBlocked,
			Message: "thread " + j.thread + " is blocked by the loop guard (" + why + "); unblock it to continue"})
		return j.result, nil
	}
	d.table.Start(j.id, now)
	d.queue = append(d.queue, j)
	step := d.look(j, now, g)
	d.mu.Unlock()
	d.publishNotes()
	d.Poke()
	d.log.Info("trigger_queued", "trigger_id", j.id, "thread", j.thread, "caller", j.caller.Label(), "requester", p.Requester, "bytes", len(p.Prompt),
		"force", p.ForceOverride, "wait", p.Wait)
	if !p.Wait {
		r := ipc.TriggerResult{TriggerID: j.id, ThreadID: j.thread, Result: ipc.OutcomeAccepted, DeliveryBackend: "pty"}
		if step.Action == trigger.Wait {
			r.Result, r.ErrorCode, r.DeferredUntil = ipc.OutcomeDeferred, ipc.Code(step.Code), step.Next.UnixMilli()
			if r.ErrorCode == ipc.CodeAgentAsked {
				r.Message = askedMessage(g.Question)
			}
		}
		return r, nil
	}
	select {
	case <-j.done:
		return j.result, nil
	case <-ctx.Done():
		return ipc.TriggerResult{}, ipc.Errorf(ipc.CodeInternal, "trigger %s: %v (delivery goes on; its outcome comes as an event)", j.id, ctx.Err())
	}
}

// consent checks the policy for j's caller (specs/security.md, "Consent
// is the operator's"): the trigger itself, and a force. No agent may
// claim a human's override, whatever it is granted.
func (d *Desk) consent(j *job) error {
	if err := d.sess.Allow(j.caller, caller.ActTrigger, "trigger"); err != nil {
		return err
	}
	if !j.override.Requested {
		return nil
	}
	if !j.caller.IsOperator() && j.override.Intent == trigger.IntentHuman {
		return ipc.Errorf(ipc.CodeNotAllowed, "trigger: refused for %s: no agent may claim %s (only the operator is a human to sup); nothing done",
			j.caller.Label(), j.override.Prefix)
	}
	return d.sess.Allow(j.caller, caller.ActForce, "trigger --force")
}

// newJob validates params into a job.
func (d *Desk) newJob(p ipc.TriggerParams, envelope bool) (*job, error) {
	cfg := d.cfg
	id := trigger.SanitizeID(p.TriggerID)
	if id == "" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "trigger: trigger_id %q: need an id of letters, digits and . _ : -", p.TriggerID)
	}
	thread := trigger.SanitizeID(p.ThreadID)
	if p.ThreadID != "" && thread == "" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "trigger: thread_id %q: need letters, digits and . _ : -", p.ThreadID)
	}
	if thread == "" {
		thread = defaultThread
	}
	if p.Prompt == "" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "trigger: params need prompt (the text to deliver)")
	}
	if err := trigger.CheckSize(p.Prompt, cfg.MaxPromptBytes); err != nil {
		return nil, ipc.Errorf(ipc.CodePayloadTooLarge, "trigger: %v", err)
	}
	text := trigger.Sanitize(p.Prompt)
	if text == "" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "trigger: prompt holds only control characters; nothing to deliver")
	}
	if p.AckTimeoutMS < 0 {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "trigger: ack_timeout_ms %d: must be positive (0: the default, %s)", p.AckTimeoutMS, cfg.AckTimeout)
	}
	ov, err := trigger.ParseOverride(p.ForceOverride, p.OverrideReason)
	if err != nil {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "trigger: %v", err)
	}
	j := &job{id: id, thread: thread, p: p, text: text, hash: trigger.Hash(text), override: ov,
		queued: time.Now(), ackTimeout: cfg.AckTimeout, done: make(chan struct{}), cancel: make(chan struct{})}
	if p.AckTimeoutMS > 0 {
		j.ackTimeout = time.Duration(p.AckTimeoutMS) * time.Millisecond
	}
	j.envelope = envelope // the profile's, unless the request says
	if p.Envelope != nil {
		j.envelope = *p.Envelope
	}
	if j.envelope {
		j.text = trigger.Envelope(id, thread, p.Reason, text)
	}
	return j, nil
}

// finish books a job's final outcome: the audit line (synced) first, then
// the idempotency table, counts, metrics, the event, and the waiting caller.
func (d *Desk) finish(j *job, r ipc.TriggerResult) {
	now := time.Now()
	r.TriggerID, r.ThreadID, r.DeliveryBackend = j.id, j.thread, "pty"
	sessionID, document := d.sess.Identity()
	rec := store.AuditRecord{
		Time: now.UnixMilli(), TriggerID: j.id, ThreadID: j.thread, Session: sessionID, Document: document,
		Requester: j.p.Requester, Caller: &j.caller, Reason: j.p.Reason, Result: string(r.Result), ErrorCode: string(r.ErrorCode), Message: r.Message,
		Attempts: r.Attempts, AckedBy: r.AckedBy, Fallback: r.Fallback, DeliveredAt: r.DeliveredAt,
		LatencyMS: now.Sub(j.queued).Milliseconds(), Envelope: j.envelope,
		ForceOverrideRequested: j.override.Requested, ForceOverrideApplied: j.applied,
		OverrideIntent: j.override.Intent, OverrideReasonPrefix: j.override.Prefix, OverrideReason: j.override.Reason,
		CollisionGate: j.gate, PromptBytes: len(j.p.Prompt), PromptSHA256: trigger.Hash(j.p.Prompt),
	}
	if d.cfg.AuditPrompts {
		rec.Prompt = j.p.Prompt
	}
	if err := d.audit.Append(rec); err != nil {
		r.AuditError = err.Error()
		d.log.Error("audit_failed", "trigger_id", j.id, "err", err)
	}
	d.mu.Lock()
	if r.ErrorCode == ipc.CodeThreadAutoBlocked || r.ErrorCode == ipc.CodeNotAllowed {
		d.table.Forget(j.id) // not an outcome a repeat of the id should get
	} else {
		d.table.Finish(j.id, r, now)
	}
	d.counts[string(r.Result)]++
	d.metrics.inc("trigger_" + string(r.Result) + "_total")
	if r.ErrorCode != "" {
		d.metrics.inc("trigger_error_" + string(r.ErrorCode) + "_total")
	}
	if r.Fallback != "" {
		d.metrics.inc("trigger_fallback_" + r.Fallback + "_total")
	}
	if j.override.Requested {
		d.metrics.inc("trigger_override_total")
	}
	if r.AuditError != "" {
		d.metrics.inc("trigger_audit_errors_total")
	}
	if r.Result == ipc.OutcomeDelivered {
		d.metrics.observe("trigger_latency_ms", float64(now.Sub(j.queued).Microseconds())/1000)
	}
	d.mu.Unlock()
	d.log.Info("trigger_outcome", "trigger_id", j.id, "thread", j.thread, "caller", j.caller.Label(), "result", r.Result, "error_code", r.ErrorCode,
		"attempts", r.Attempts, "acked_by", r.AckedBy, "fallback", r.Fallback, "gate", j.gate, "override", j.override.Intent)
	d.sess.Publish(ipc.EventTrigger, ipc.NewTriggerEvent(r, j.caller))
	j.result = r
	close(j.done)
}

// Unblock lets a thread the loop guard blocked take triggers again; the
// result says whether it was blocked.
func (d *Desk) Unblock(p ipc.UnblockParams) (ipc.UnblockResult, error) {
	thread := trigger.SanitizeID(p.ThreadID)
	if thread == "" {
		return ipc.UnblockResult{}, ipc.Errorf(ipc.CodeBadRequest, "unblock: thread_id %q: need the thread's id (state lists blocked_threads)", p.ThreadID)
	}
	d.mu.Lock()
	was := d.guard.Unblock(thread)
	d.mu.Unlock()
	d.log.Info("trigger_unblock", "thread", thread, "was_blocked", was)
	return ipc.UnblockResult{ThreadID: thread, Blocked: was}, nil
}

// Metrics is a copy of the desk's counters and histograms.
func (d *Desk) Metrics() ipc.MetricsResult {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.metrics.snapshot()
}

// State fills the trigger fields of `state`.
func (d *Desk) State(st *ipc.State) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, v := range d.counts {
		st.Triggers[k] = v
	}
	st.PendingTriggers = len(d.queue)
	if d.active != nil {
		st.PendingTriggers++
	}
	st.BlockedThreads = d.guard.BlockedThreads()
	if st.BlockedThreads == nil {
		st.BlockedThreads = []string{}
	}
}

// Config is the desk's trigger configuration, defaults applied.
func (d *Desk) Config() trigger.Config { return d.cfg }
