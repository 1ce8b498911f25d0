package desk

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// Bracketed paste brackets (xterm mode 2004).
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// look decides what to do with a queued job now, given the session's
// gates (read before d.mu was taken). d.mu is held.
func (d *Desk) look(j *job, now time.Time, g Gates) trigger.Step {
	verdict, until := d.guard.Check(j.thread, now)
	switch {
	case verdict == trigger.Blocked:
		return trigger.Step{Action: trigger.Fail, Code: string(ipc.CodeThreadAutoBlocked)}
	case g.Stopped:
		return trigger.Step{Action: trigger.Fail, Code: string(ipc.CodeNotRunning)}
	}
	l := j.look(now, j.queued, g)
	if verdict == trigger.RateLimited {
		l.RateUntil = until
	}
	step := d.cfg.Decide(l)
	switch step.Action {
	case trigger.Deliver:
		j.gate, j.applied = step.Gate, j.forced(l)
	case trigger.Wait:
		d.noteWait(j, ipc.Code(step.Code), step.Next, g)
		if !j.deferred {
			j.deferred = true
			d.metrics.inc("trigger_deferred_total")
			if ipc.Code(step.Code) == ipc.CodeTriggerRateLimited {
				d.metrics.inc("trigger_rate_limited_total")
			}
		}
	}
	return step
}

// failure is a final outcome decided without delivering.
type failure struct {
	j *job
	r ipc.TriggerResult
}

// pick takes the first queued job that may be delivered now, and the jobs
// whose wait is over without delivery; next is when to look again.
func (d *Desk) pick(now time.Time) (ready *job, failed []failure, next time.Time) {
	g := d.sess.Facts(now).Gates // before d.mu: never call the session under it
	d.mu.Lock()
	defer d.mu.Unlock()
	keep := d.queue[:0]
	for _, j := range d.queue {
		if ready != nil {
			keep = append(keep, j)
			continue
		}
		step := d.look(j, now, g)
		switch step.Action {
		case trigger.Deliver:
			ready = j
			d.active = j
		case trigger.Fail:
			failed = append(failed, failure{j, d.waitFailure(j, ipc.Code(step.Code))})
		default:
			keep = append(keep, j)
			if next.IsZero() || step.Next.Before(next) {
				next = step.Next
			}
		}
	}
	clear(d.queue[len(keep):])
	d.queue = keep
	return ready, failed, next
}

func (d *Desk) waitFailure(j *job, code ipc.Code) ipc.TriggerResult {
	r := ipc.TriggerResult{Result: ipc.OutcomeFailed, ErrorCode: code}
	j.gate = trigger.GateEnforced
	switch code {
	case ipc.CodeDeferTimeout:
		r.Message = fmt.Sprintf("deferred past the limit (operator busy %s, agent busy %s): not delivered; the caller's fallback applies",
			d.cfg.MaxDefer, d.cfg.MaxBusyWait)
	case ipc.CodeThreadAutoBlocked:
		j.gate = trigger.GateNotEvaluated
		r.Message = "thread " + j.thread + " was blocked by the loop guard while this trigger waited"
	case ipc.CodeNotRunning:
		j.gate = trigger.GateNotEvaluated
		r.Message = "sup is stopping; not delivered"
	case ipc.CodeAgentAsked:
		r.Message = fmt.Sprintf("held %s and the human has not answered: %s", d.cfg.MaxBusyWait, askedMessage(j.question))
	}
	return r
}

// look is what the policy sees of j at now, its wait counted from
// waitFrom, under the gates g. It remembers the open question for the
// outcome's message.
func (j *job) look(now, waitFrom time.Time, g Gates) trigger.Look {
	if g.Question != "" {
		j.question = g.Question
	}
	return trigger.Look{Now: now, Queued: waitFrom, Force: j.override.Requested, OperatorBusy: g.OperatorBusy,
		AgentBusy: g.AgentBusy, Asked: g.Question != "", Answering: j.p.Answering || j.named(g.Question)}
}

// forced: the override let j through a gate that held it (the human's
// typing, or a question it does not answer).
func (j *job) forced(l trigger.Look) bool {
	return j.override.Requested && (l.OperatorBusy || l.Asked && !l.Answering)
}

// named: the question names j's thread or id as a whole token ("reply on
// thread th_01?"), so the caller that owns it is answering. Only a name
// that looks like an id (a digit or one of _ - . :) counts: a thread
// called "reply" is not named by "Should I reply?".
func (j *job) named(question string) bool {
	if question == "" {
		return false
	}
	for _, name := range []string{j.thread, j.id} {
		if strings.ContainsAny(name, "0123456789_-.:") && hasToken(question, name) {
			return true
		}
	}
	return false
}

// hasToken reports whether name occurs in s not inside a longer id.
func hasToken(s, name string) bool {
	for i := 0; ; {
		k := strings.Index(s[i:], name)
		if k < 0 {
			return false
		}
		start, end := i+k, i+k+len(name)
		if (start == 0 || !idByte(s[start-1])) && (end == len(s) || !idByte(s[end])) {
			return true
		}
		i = start + 1
	}
}

func idByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

// askedMessage is the text of an AGENT_ASKED outcome: the question, and
// how to get past it.
func askedMessage(q string) string {
	return fmt.Sprintf("the agent asked the human: %q; the trigger is held until the human answers "+
		"(send it with --answering if it is the answer, or force it with an override reason)", q)
}

// Run is the session's one delivery goroutine: it works through the queue
// until done is closed, so no two deliveries ever interleave, and then
// fails what is still queued.
func (d *Desk) Run(done <-chan struct{}) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		changed := d.sess.Changed() // before the look: a change after it wakes the wait
		j, failed, next := d.pick(time.Now())
		d.publishNotes()
		for _, f := range failed {
			d.finish(f.j, f.r)
		}
		if j != nil {
			r := d.deliver(j)
			d.mu.Lock()
			d.active = nil
			d.mu.Unlock()
			d.finish(j, r)
			continue
		}
		wait := time.Hour
		if next.IsZero() {
			// Nothing queued: no change of the session's facts concerns
			// the desk until a trigger comes (Poke), so an idle session's
			// changes never wake it.
			changed = nil
		} else {
			wait = max(time.Until(next), time.Millisecond)
		}
		timer.Reset(wait)
		select {
		case <-d.kick:
		case <-changed:
		case <-timer.C:
		case <-done:
			d.dropQueue()
			return
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// dropQueue fails what is still queued when sup ends.
func (d *Desk) dropQueue() {
	d.mu.Lock()
	q := d.queue
	d.queue = nil
	d.mu.Unlock()
	for _, j := range q {
		d.finish(j, d.waitFailure(j, ipc.CodeNotRunning))
	}
}

// paste is text as the agent reads a paste: in bracketed-paste brackets
// when it asked for them (bracketed), so a newline in it is part of the
// text, not a submit. Triggers and text answers are both pasted this way;
// the submit is a separate "\r" (Port.Write).
func paste(text string, bracketed bool) string {
	if bracketed {
		return pasteStart + text + pasteEnd
	}
	return text
}

// deliver pastes j into the child (bringing a stopped child back first),
// submits it, and waits for the ack, retrying as the policy allows.
func (d *Desk) deliver(j *job) ipc.TriggerResult {
	var r ipc.TriggerResult
	c := d.sess.Child()
	if c == nil {
		var code ipc.Code
		var err error
		c, r.Fallback, code, err = d.sess.BringBack()
		if err != nil {
			r.Result, r.ErrorCode, r.Message = ipc.OutcomeFailed, code, err.Error()
			return r
		}
	}
	waitFrom := j.queued // a first attempt's wait counts from the queueing
	for attempt := 1; ; attempt++ {
		r.Attempts = attempt
		if d.isCancelled(j) {
			return d.cancelledByRequest(r, j)
		}
		writeAt := time.Now()
		facts := d.sess.Facts(writeAt)
		payload := paste(j.text, facts.BracketedPaste)
		j.foreground, j.outBefore = facts.Ack.Foreground, facts.Ack.OutputBytes // a line-mode ack and the loop guard compare against them
		// keys: the human's keys routed so far, read in check under the
		// input lock right before the paste (after any write ahead of
		// this one): a key routed by the confirm moved it, whatever its
		// stamp (a key read before the paste is booked after it).
		var keys uint64
		submitAt, err := d.sess.Write(c, func(g Gates) ([]byte, bool, error) {
			if !d.open(j, waitFrom, g) {
				return nil, false, ErrGateClosed
			}
			keys = g.Keys
			return []byte(payload), true, nil
		}, func(g Gates) error {
			// The paste's own text is a draft now, and its echo is
			// output (a program read from the kernel is busy while it
			// prints): what must not have happened is a prompt opening,
			// sup stopping or the human typing.
			switch {
			case g.Prompting:
				return fmt.Errorf("%w: %s", ErrSubmitWithheld, g.AgentWhy)
			case g.Stopped:
				return fmt.Errorf("%w: sup is stopping", ErrSubmitWithheld)
			case g.Keys != keys:
				return fmt.Errorf("%w: the human typed in the pane", ErrSubmitWithheld)
			}
			return nil
		})
		switch {
		case errors.Is(err, ErrGateClosed):
			// The gates closed between the look and the write (a dialog
			// opened, the human started typing): wait as a queued
			// trigger waits, then try the same attempt again.
			d.log.Info("trigger_gate_closed", "trigger_id", j.id, "attempt", attempt)
			if fail, code := d.waitGates(c, j, waitFrom); fail {
				if code == ipc.CodeTriggerCancelled {
					return d.cancelledByRequest(r, j)
				}
				if code == "" {
					return cancelled(r, "the agent ended while the trigger waited for its gates")
				}
				f := d.waitFailure(j, code)
				f.Attempts = attempt - 1
				return f
			}
			attempt--
			continue
		case errors.Is(err, ErrChildGone) && err != ErrChildGone:
			return cancelled(r, "the agent ended "+strings.TrimPrefix(err.Error(), ErrChildGone.Error()+" "))
		case errors.Is(err, ErrChildGone):
			return cancelled(r, "the agent ended before the trigger was written")
		case errors.Is(err, ErrSubmitWithheld):
			// Never retried: the text is on the screen (in the input box,
			// or typed into whatever opened), and a second paste would
			// double it.
			d.log.Info("trigger_submit_withheld", "trigger_id", j.id, "attempt", attempt, "why", err.Error())
			r.Result, r.ErrorCode = ipc.OutcomeFailed, ipc.CodeSubmitWithheld
			r.Message = "the agent or the human moved between the paste and its Enter (" + strings.TrimPrefix(err.Error(), ErrSubmitWithheld.Error()+": ") +
				"): the text was typed and the Enter withheld, so it answered nothing; the text may sit in the agent's input box"
			return r
		case errors.Is(err, os.ErrDeadlineExceeded):
			r.Result, r.ErrorCode = ipc.OutcomeTimeout, ipc.CodeAckTimeout
			r.Message = fmt.Sprintf("the agent did not read its input within %s", WriteTimeout)
			return r
		case err != nil:
			return cancelled(r, "write to the agent's pty: "+err.Error())
		}
		d.mu.Lock()
		d.guard.Attempt(j.thread, writeAt)
		if attempt == 1 {
			d.metrics.observe("trigger_write_latency_ms", float64(writeAt.Sub(j.queued).Microseconds())/1000)
		} else {
			d.metrics.inc("trigger_retry_total")
		}
		d.mu.Unlock()
		d.log.Info("trigger_written", "trigger_id", j.id, "attempt", attempt, "bytes", len(payload), "bracketed", len(payload) != len(j.text))
		d.sess.Publish(EventProgress, ipc.TriggerProgress{TriggerID: j.id, ThreadID: j.thread, State: ipc.ProgressWritten,
			Attempt: attempt, Gate: j.gate})
		by, gone := d.waitAck(c, j, writeAt, submitAt)
		switch {
		case gone:
			return cancelled(r, "the agent ended before it acknowledged the trigger")
		case by != "":
			r.Result, r.AckedBy, r.DeliveredAt = ipc.OutcomeDelivered, by, writeAt.UnixMilli()
			if by == "output" || by == "foreground" {
				d.mu.Lock()
				d.lineOut = &lineDelivery{before: j.outBefore, echo: echoAllowance(j.text)}
				d.mu.Unlock()
			}
			return r
		}
		trace := d.payloadOnScreen(j)
		retry, backoff := d.cfg.AfterTimeout(attempt, trace)
		if !retry {
			r.Result, r.ErrorCode = ipc.OutcomeTimeout, ipc.CodeAckTimeout
			r.Message = fmt.Sprintf("no acknowledgement within %s after %d attempt(s)", j.ackTimeout, attempt)
			if trace {
				r.Message += "; the text is still on the screen, so it was not pasted again"
			}
			return r
		}
		select {
		case <-time.After(backoff):
		case <-c.Done():
			return cancelled(r, "the agent ended while the trigger waited to retry")
		}
		// A retry is a new wait: a dialog that opened meanwhile defers
		// it like a first attempt, from now (specs/triggers.md).
		waitFrom = time.Now()
	}
}

// open is the check Session.Write makes under the input lock, right
// before the first byte: the policy would deliver j now. It takes d.mu
// (the desk's lock is taken inside the input lock, never around it).
func (d *Desk) open(j *job, waitFrom time.Time, g Gates) bool {
	if g.Stopped {
		return false
	}
	l := j.look(time.Now(), waitFrom, g)
	step := d.cfg.Decide(l)
	if step.Action != trigger.Deliver {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if j.cancelled {
		return false
	}
	j.written = true
	j.gate, j.applied = step.Gate, j.forced(l)
	return true
}

// waitGates waits, like a queued trigger, until the gates let j go (false)
// or its wait is over: fail with the code, or an empty code when c ended.
func (d *Desk) waitGates(c Child, j *job, waitFrom time.Time) (fail bool, code ipc.Code) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		changed := d.sess.Changed()
		now := time.Now()
		g := d.sess.Facts(now).Gates
		if g.Stopped {
			return true, ipc.CodeNotRunning
		}
		step := d.cfg.Decide(j.look(now, waitFrom, g))
		switch step.Action {
		case trigger.Deliver:
			return false, ""
		case trigger.Fail:
			return true, ipc.Code(step.Code)
		}
		d.mu.Lock()
		d.noteWait(j, ipc.Code(step.Code), step.Next, g)
		d.mu.Unlock()
		d.publishNotes()
		timer.Reset(max(time.Until(step.Next), time.Millisecond))
		select {
		case <-d.kick:
		case <-changed:
		case <-timer.C:
		case <-c.Done():
			return true, ""
		case <-j.cancel:
			return true, ipc.CodeTriggerCancelled
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

func cancelled(r ipc.TriggerResult, why string) ipc.TriggerResult {
	r.Result, r.ErrorCode, r.Message = ipc.OutcomeFailed, ipc.CodeTriggerCancelled, why
	return r
}

// waitAck waits up to the job's ack timeout for the agent to take the
// trigger; gone reports that c ended (or was replaced) meanwhile. It looks
// at each change of the session's facts (Port.Changed: a hook, the
// activity, the screen with a marker, output), never on a tick.
func (d *Desk) waitAck(c Child, j *job, writeAt, submitAt time.Time) (by string, gone bool) {
	deadline := time.NewTimer(time.Until(writeAt.Add(j.ackTimeout)))
	defer deadline.Stop()
	marker := d.cfg.Marker(j.id)
	for {
		changed := d.sess.Changed()
		if d.sess.Child() != c {
			return "", true
		}
		if by := d.acked(j, writeAt, submitAt, marker); by != "" {
			return by, false
		}
		select {
		case <-deadline.C:
			return d.acked(j, writeAt, submitAt, marker), false
		case <-c.Done():
			return "", true
		case <-changed:
		}
	}
}

// acked says what, if anything, shows that the agent took the trigger
// written at writeAt and submitted at submitAt: a submitted-prompt hook
// naming it, the agent turning busy, or the configured marker on the
// screen; for a program in line mode (a shell), output after the Enter or
// a new foreground process group (the command started).
func (d *Desk) acked(j *job, writeAt, submitAt time.Time, marker string) string {
	f := d.sess.Facts(time.Now()).Ack
	if f.Prompt != "" && !f.PromptAt.Before(writeAt) &&
		(strings.Contains(f.Prompt, "id="+j.id) || strings.Contains(f.Prompt, head(j.p.Prompt))) {
		return "hook"
	}
	if marker != "" && strings.Contains(d.sess.ScreenText(), marker) {
		return "marker"
	}
	if f.LineMode {
		switch {
		case f.LastOutput.After(submitAt):
			return "output"
		case f.Foreground != 0 && j.foreground != 0 && f.Foreground != j.foreground:
			return "foreground"
		}
	} else if f.Busy && !f.Since.Before(writeAt) {
		return "activity"
	}
	return ""
}

// minTrace is the shortest head worth looking for on the screen: a
// shorter one would be found in unrelated text.
const minTrace = 8

// payloadOnScreen reports whether the trigger's text may still sit in the
// agent's input box: a draft, or its first line visible on the screen (a
// head shorter than minTrace cannot tell, and counts as no trace).
func (d *Desk) payloadOnScreen(j *job) bool {
	if d.sess.Facts(time.Now()).Ack.Draft != "" {
		return true
	}
	h := head(j.text)
	return utf8.RuneCountInString(h) >= minTrace && strings.Contains(d.sess.ScreenText(), h)
}

// head is the start of text's first non-blank line, short enough to fit
// on one screen row.
func head(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			for i := range line {
				if utf8.RuneCountInString(line[:i]) >= 40 {
					return line[:i]
				}
			}
			return line
		}
	}
	return text
}
