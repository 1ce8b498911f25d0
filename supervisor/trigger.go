package supervisor

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/store"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// defaultThread names the thread of a trigger that gives none.
const defaultThread = "default"

// triggers is the session's trigger desk: the queue one delivery goroutine
// works through (so deliveries never interleave), the idempotency table,
// the per-thread guard, the counts `state` reports and the metrics.
type triggers struct {
	cfg   trigger.Config
	audit *store.Audit
	kick  chan struct{} // something a waiting trigger may wait for changed

	mu      sync.Mutex
	table   *trigger.Table
	guard   *trigger.Guard
	queue   []*job
	active  *job // the one being delivered
	counts  map[string]int
	metrics *metrics
}

// job is one trigger on its way.
type job struct {
	id, thread string
	p          ipc.TriggerParams
	text       string // what is pasted: the sanitised prompt, in its envelope unless turned off
	hash       string // of the sanitised prompt
	override   trigger.Override
	queued     time.Time
	ackTimeout time.Duration

	deferred bool   // was deferred at least once
	gate     string // the collision gate it passed
	applied  bool   // the force bypassed a busy operator
	done     chan struct{}
	result   ipc.TriggerResult // final, once done is closed
}

func newTriggers(cfg trigger.Config, audit *store.Audit) *triggers {
	cfg = cfg.WithDefaults()
	return &triggers{
		cfg: cfg, audit: audit, kick: make(chan struct{}, 1),
		table: trigger.NewTable(cfg), guard: trigger.NewGuard(cfg),
		counts: map[string]int{}, metrics: newMetrics(),
	}
}

// poke wakes the delivery goroutine.
func (t *triggers) poke() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// restore fills the idempotency table from the audit log's records of this
// document, so that a trigger id repeated after a sup restart still gets
// its first outcome.
func (t *triggers) restore(document string, now time.Time) (int, error) {
	recs, err := t.audit.Recent(document)
	if err != nil {
		return 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, r := range recs {
		at := time.UnixMilli(r.Time)
		if r.ErrorCode == ipc.CodeThreadAutoBlocked || now.Sub(at) > t.cfg.RememberFor {
			continue
		}
		t.table.Finish(r.TriggerID, ipc.TriggerResult{
			TriggerID: r.TriggerID, ThreadID: r.ThreadID, Result: r.Result, ErrorCode: r.ErrorCode, Message: r.Message,
			DeliveryBackend: "pty", DeliveredAt: r.DeliveredAt, Attempts: r.Attempts, AckedBy: r.AckedBy, Fallback: r.Fallback,
		}, at)
		n++
	}
	return n, nil
}

// handleTrigger validates a trigger, answers repeats from the idempotency
// table and refuses blocked threads at once; anything else is queued for
// the delivery goroutine. With wait it answers the final outcome; without,
// accepted or deferred at once.
func (s *Session) handleTrigger(ctx context.Context, req *ipc.Request) (any, error) {
	var p ipc.TriggerParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	j, err := s.newJob(p)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	t := s.trig
	t.mu.Lock()
	t.metrics.inc("trigger_requests_total")
	if o, ok := t.table.Lookup(j.id, now); ok {
		t.mu.Unlock()
		if !o.Final {
			t.mu.Lock()
			t.metrics.inc("trigger_already_active_total")
			t.mu.Unlock()
			return ipc.TriggerResult{TriggerID: j.id, ThreadID: j.thread, Result: ipc.OutcomeAlreadyActive, DeliveryBackend: "pty",
				Message: "a trigger with this id is under way"}, nil
		}
		r := o.Data.(ipc.TriggerResult)
		r.Repeat = true
		s.log.Info("trigger_repeat", "trigger_id", j.id, "result", r.Result)
		return r, nil
	}
	blocked, why := t.guard.Blocked(j.thread)
	if !blocked {
		blocked, why = t.guard.Count(j.thread, j.hash, s.progress())
	}
	if blocked {
		t.mu.Unlock()
		j.gate = trigger.GateNotEvaluated
		s.finish(j, ipc.TriggerResult{Result: ipc.OutcomeFailed, ErrorCode: ipc.CodeThreadAutoBlocked,
			Message: "thread " + j.thread + " is blocked by the loop guard (" + why + "); unblock it to continue"})
		return j.result, nil
	}
	t.table.Start(j.id, now)
	t.queue = append(t.queue, j)
	step := s.look(j, now)
	t.mu.Unlock()
	t.poke()
	s.log.Info("trigger_queued", "trigger_id", j.id, "thread", j.thread, "requester", p.Requester, "bytes", len(p.Prompt),
		"force", p.ForceOverride, "wait", p.Wait)
	if !p.Wait {
		r := ipc.TriggerResult{TriggerID: j.id, ThreadID: j.thread, Result: ipc.OutcomeAccepted, DeliveryBackend: "pty"}
		if step.Action == trigger.Wait {
			r.Result, r.ErrorCode, r.DeferredUntil = ipc.OutcomeDeferred, step.Code, step.Next.UnixMilli()
		}
		return r, nil
	}
	select {
	case <-j.done:
		return j.result, nil
	case <-ctx.Done():
		return nil, ipc.Errorf(ipc.CodeInternal, "trigger %s: %v (delivery goes on; its outcome comes as an event)", j.id, ctx.Err())
	}
}

// newJob validates params into a job.
func (s *Session) newJob(p ipc.TriggerParams) (*job, error) {
	cfg := s.trig.cfg
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
		queued: time.Now(), ackTimeout: cfg.AckTimeout, done: make(chan struct{})}
	if p.AckTimeoutMS > 0 {
		j.ackTimeout = time.Duration(p.AckTimeoutMS) * time.Millisecond
	}
	if p.Envelope == nil || *p.Envelope {
		j.text = trigger.Envelope(id, thread, p.Reason, text)
	}
	return j, nil
}

// progress is the loop guard's token for the agent's state: a new
// assistant message or a key from the human moves the conversation on.
func (s *Session) progress() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.act.State(time.Now())
	return st.Summary + "\x00" + strconv.FormatInt(st.LastInputAt.UnixNano(), 10)
}

// finish books a job's final outcome: the audit line (synced) first, then
// the idempotency table, counts, metrics, the event, and the waiting caller.
func (s *Session) finish(j *job, r ipc.TriggerResult) {
	now := time.Now()
	r.TriggerID, r.ThreadID, r.DeliveryBackend = j.id, j.thread, "pty"
	pl := s.Plan()
	rec := store.AuditRecord{
		Time: now.UnixMilli(), TriggerID: j.id, ThreadID: j.thread, Session: pl.SessionID, Document: pl.Document,
		Requester: j.p.Requester, Reason: j.p.Reason, Result: r.Result, ErrorCode: r.ErrorCode, Message: r.Message,
		Attempts: r.Attempts, AckedBy: r.AckedBy, Fallback: r.Fallback, DeliveredAt: r.DeliveredAt,
		LatencyMS: now.Sub(j.queued).Milliseconds(), Envelope: j.p.Envelope == nil || *j.p.Envelope,
		ForceOverrideRequested: j.override.Requested, ForceOverrideApplied: j.applied,
		OverrideIntent: j.override.Intent, OverrideReasonPrefix: j.override.Prefix, OverrideReason: j.override.Reason,
		CollisionGate: j.gate, PromptBytes: len(j.p.Prompt), PromptSHA256: trigger.Hash(j.p.Prompt),
	}
	if s.trig.cfg.AuditPrompts {
		rec.Prompt = j.p.Prompt
	}
	if err := s.trig.audit.Append(rec); err != nil {
		r.AuditError = err.Error()
		s.log.Error("audit_failed", "trigger_id", j.id, "err", err)
	}
	t := s.trig
	t.mu.Lock()
	if r.ErrorCode == ipc.CodeThreadAutoBlocked {
		t.table.Forget(j.id)
	} else {
		t.table.Finish(j.id, r, now)
	}
	t.counts[r.Result]++
	t.metrics.inc("trigger_" + r.Result + "_total")
	if r.ErrorCode != "" {
		t.metrics.inc("trigger_error_" + r.ErrorCode + "_total")
	}
	if r.Fallback != "" {
		t.metrics.inc("trigger_fallback_" + r.Fallback + "_total")
	}
	if j.override.Requested {
		t.metrics.inc("trigger_override_total")
	}
	if r.AuditError != "" {
		t.metrics.inc("trigger_audit_errors_total")
	}
	if r.Result == ipc.OutcomeDelivered {
		t.metrics.observe("trigger_latency_ms", float64(now.Sub(j.queued).Microseconds())/1000)
	}
	t.mu.Unlock()
	s.log.Info("trigger_outcome", "trigger_id", j.id, "thread", j.thread, "result", r.Result, "error_code", r.ErrorCode,
		"attempts", r.Attempts, "acked_by", r.AckedBy, "fallback", r.Fallback, "gate", j.gate, "override", j.override.Intent)
	s.publish("trigger", map[string]any{
		"trigger_id": r.TriggerID, "thread_id": r.ThreadID, "result": r.Result, "error_code": r.ErrorCode,
		"message": r.Message, "delivered_at": r.DeliveredAt, "attempts": r.Attempts, "acked_by": r.AckedBy,
		"fallback": r.Fallback, "audit_error": r.AuditError,
	})
	j.result = r
	close(j.done)
}

func (s *Session) handleUnblock(_ context.Context, req *ipc.Request) (any, error) {
	var p ipc.UnblockParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	thread := trigger.SanitizeID(p.ThreadID)
	if thread == "" {
		return nil, ipc.Errorf(ipc.CodeBadRequest, "unblock: thread_id %q: need the thread's id (state lists blocked_threads)", p.ThreadID)
	}
	s.trig.mu.Lock()
	was := s.trig.guard.Unblock(thread)
	s.trig.mu.Unlock()
	s.log.Info("trigger_unblock", "thread", thread, "was_blocked", was)
	return ipc.UnblockResult{ThreadID: thread, Blocked: was}, nil
}

func (s *Session) handleMetrics(context.Context, *ipc.Request) (any, error) {
	s.trig.mu.Lock()
	defer s.trig.mu.Unlock()
	return s.trig.metrics.snapshot(), nil
}

// triggerState fills the trigger fields of `state`.
func (s *Session) triggerState(st *ipc.State) {
	t := s.trig
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, v := range t.counts {
		st.Triggers[k] = v
	}
	st.PendingTriggers = len(t.queue)
	if t.active != nil {
		st.PendingTriggers++
	}
	st.BlockedThreads = t.guard.BlockedThreads()
	if st.BlockedThreads == nil {
		st.BlockedThreads = []string{}
	}
}
