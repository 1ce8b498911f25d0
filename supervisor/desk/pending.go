package desk

import (
	"context"
	"fmt"
	"time"

	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// EventProgress is the event a waiting trigger's steps are published as:
// deferred (and why, whenever the reason changes) and written (it went
// out). `sup trigger` prints them while it waits (specs/triggers.md,
// "What a waiting caller sees").
const EventProgress = ipc.EventTriggerProgress

// noteWait records why j waits now; a new reason becomes a
// trigger_progress event, published by publishNotes once d.mu is
// released (the desk never calls the session under its lock). d.mu is
// held.
func (d *Desk) noteWait(j *job, code ipc.Code, next time.Time, g Gates) {
	j.waitNext = next
	if code == j.waitCode {
		return
	}
	j.waitCode, j.waitWhy = code, d.waitWords(j, code, g)
	giveUp := j.queued.Add(d.cfg.MaxDefer)
	if code == ipc.CodeAgentBusy || code == ipc.CodeAgentAsked {
		giveUp = j.queued.Add(d.cfg.MaxBusyWait)
	}
	d.notes = append(d.notes, ipc.TriggerProgress{
		TriggerID: j.id, ThreadID: j.thread, State: ipc.ProgressDeferred, ErrorCode: code,
		Message: j.waitWhy, NextLookAt: next.UnixMilli(), GivesUpAt: giveUp.UnixMilli(),
	})
}

// waitWords says in words why a trigger waits.
func (d *Desk) waitWords(j *job, code ipc.Code, g Gates) string {
	switch code {
	case ipc.CodeOperatorBusy:
		if g.OperatorWhy != "" {
			return g.OperatorWhy
		}
		return "the human is typing in the pane"
	case ipc.CodeAgentBusy:
		if g.AgentWhy != "" {
			return g.AgentWhy
		}
		return "the agent is busy"
	case ipc.CodeAgentAsked:
		return "the agent asked the human a question; this trigger is not its answer (--answering says it is): " + g.Question
	case ipc.CodeTriggerRateLimited:
		return fmt.Sprintf("thread %s is rate limited (at most %d triggers per %s)", j.thread, d.cfg.RateLimit, d.cfg.RateWindow)
	}
	return string(code)
}

// publishNotes publishes the trigger_progress events noteWait recorded.
func (d *Desk) publishNotes() {
	d.mu.Lock()
	notes := d.notes
	d.notes = nil
	d.mu.Unlock()
	for _, n := range notes {
		d.sess.Publish(EventProgress, n)
	}
}

// Pending lists the triggers not yet finished: the one being delivered
// first, then the queue in order.
func (d *Desk) Pending() ipc.PendingTriggers {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := ipc.PendingTriggers{Triggers: []ipc.PendingTrigger{}}
	add := func(j *job, state string) {
		t := ipc.PendingTrigger{
			TriggerID: j.id, ThreadID: j.thread, Requester: j.p.Requester, Reason: j.p.Reason,
			QueuedAt: j.queued.UnixMilli(), State: state, PromptBytes: len(j.p.Prompt), PromptHead: head(j.text),
		}
		if state == "deferred" {
			t.ErrorCode, t.Message, t.NextLookAt = j.waitCode, j.waitWhy, j.waitNext.UnixMilli()
		}
		out.Triggers = append(out.Triggers, t)
	}
	if j := d.active; j != nil {
		state := "delivering"
		if !j.written && j.waitCode != "" {
			state = "deferred"
		}
		add(j, state)
	}
	for _, j := range d.queue {
		state := "queued"
		if j.waitCode != "" {
			state = "deferred"
		}
		add(j, state)
	}
	return out
}

// Cancel takes a trigger back before any byte of it was written: a
// queued one leaves the queue, the one waiting for its gates stops
// waiting; either ends cancelled (TRIGGER_CANCELLED), audited as any
// outcome. A trigger already written cannot be taken back; one already
// finished answers its outcome.
//
// An agent (allowed to trigger this session) may cancel only a trigger an
// agent queued: the operator's message is the human's voice.
func (d *Desk) Cancel(ctx context.Context, p ipc.CancelTriggerParams) (ipc.CancelTriggerResult, error) {
	if p.TriggerID == "" {
		return ipc.CancelTriggerResult{}, ipc.Errorf(ipc.CodeBadRequest, "cancel_trigger: params need trigger_id")
	}
	who, _ := ipc.CallerFromContext(ctx)
	if err := d.sess.Allow(who, caller.ActTrigger, "cancel_trigger"); err != nil {
		return ipc.CancelTriggerResult{}, err
	}
	operators := func(j *job) error {
		if who.IsOperator() || !j.caller.IsOperator() {
			return nil
		}
		return ipc.Errorf(ipc.CodeNotAllowed, "cancel_trigger: refused for %s: trigger %s is the operator's; only the operator may take it back", who.Label(), j.id)
	}
	by := p.Requester
	if by == "" {
		by = "a client"
	}
	d.mu.Lock()
	for i, j := range d.queue {
		if j.id != p.TriggerID {
			continue
		}
		if err := operators(j); err != nil {
			d.mu.Unlock()
			return ipc.CancelTriggerResult{}, err
		}
		d.queue = append(d.queue[:i], d.queue[i+1:]...)
		j.cancelled, j.cancelBy = true, by
		d.mu.Unlock()
		d.finish(j, d.cancelledByRequest(ipc.TriggerResult{}, j))
		return ipc.CancelTriggerResult{TriggerID: j.id, Cancelled: true, State: "cancelled"}, nil
	}
	if j := d.active; j != nil && j.id == p.TriggerID {
		if err := operators(j); err != nil {
			d.mu.Unlock()
			return ipc.CancelTriggerResult{}, err
		}
		if j.written {
			d.mu.Unlock()
			return ipc.CancelTriggerResult{TriggerID: j.id, State: "written",
				Message: "it was already typed into the agent; it cannot be taken back"}, nil
		}
		if !j.cancelled {
			j.cancelled, j.cancelBy = true, by
			close(j.cancel)
		}
		d.mu.Unlock()
		<-j.done // deliver sees the cancel before its next write
		return ipc.CancelTriggerResult{TriggerID: j.id, Cancelled: j.result.Result == ipc.OutcomeCancelled,
			State: string(j.result.Result), Message: j.result.Message}, nil
	}
	o, ok := d.table.Lookup(p.TriggerID, time.Now())
	d.mu.Unlock()
	if ok && o.Final {
		r := o.Data.(ipc.TriggerResult)
		msg := "it already finished: " + string(r.Result)
		if r.Result == ipc.OutcomeCancelled {
			msg = "it was already cancelled: " + r.Message
		}
		return ipc.CancelTriggerResult{TriggerID: p.TriggerID, State: string(r.Result), Message: msg}, nil
	}
	return ipc.CancelTriggerResult{}, ipc.Errorf(ipc.CodeTargetNotFound,
		"no pending trigger %q in this session", p.TriggerID)
}

// isCancelled reports whether Cancel took j back.
func (d *Desk) isCancelled(j *job) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return j.cancelled
}

// cancelledByRequest is the outcome of a trigger Cancel took back.
func (d *Desk) cancelledByRequest(r ipc.TriggerResult, j *job) ipc.TriggerResult {
	d.mu.Lock()
	by := j.cancelBy
	d.mu.Unlock()
	j.gate = trigger.GateNotEvaluated
	r = cancelled(r, "cancelled by "+by+" before it was typed; nothing reached the agent")
	r.Result = ipc.OutcomeCancelled
	return r
}

// lineDelivery is a delivered line-mode trigger whose output is judged at
// the next trigger.
type lineDelivery struct {
	before int64 // the session's output bytes before it was written
	echo   int64 // how many of the bytes after may be its own echo
}

// echoAllowance is how much output a line-mode trigger's own text may
// account for: the terminal's echo of it, the CRLF of its Enter and a new
// prompt (32 bytes: a default bash prompt is 10, `user@host:~/dir$ `
// more). Output beyond it is what the command printed; a command that
// prints nothing is not progress.
func echoAllowance(text string) int64 { return int64(len(text) + 32) }

// lineProgress is the loop guard's progress for a session without
// summaries (a shell in line mode; specs/triggers.md, "Rate limit and
// loop guard"): it changes once the output after the last line-mode
// delivery exceeds that trigger's echo — the command printed something.
// out is the session's output bytes, read before d.mu (the desk never
// calls the session under it).
func (d *Desk) lineProgress(out int64) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if l := d.lineOut; l != nil && out-l.before > l.echo {
		d.lineMarks++
		d.lineOut = nil
	}
	return fmt.Sprintf("\x00line:%d", d.lineMarks)
}
