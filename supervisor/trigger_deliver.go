package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/proc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// Bracketed paste brackets (xterm mode 2004).
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// ackPoll is how often an unacknowledged delivery looks at the session
// between pokes (a screen marker changes without one).
const ackPoll = 20 * time.Millisecond

// gates is what the session's state says to a waiting trigger.
type gates struct {
	operatorBusy bool // keys within the quiet window, or a draft
	agentBusy    bool // mid-turn, a prompt open, or the first child not started yet
	lifecycle    string
}

func (s *Session) gates(now time.Time) gates {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.act.State(now)
	running := s.child != nil
	return gates{
		operatorBusy: st.OperatorBusy || s.draft != "",
		agentBusy: running && (st.Activity == activity.Busy || st.Activity == activity.NeedsConfirmation) ||
			s.lifecycle == LifecycleStarting,
		lifecycle: s.lifecycle,
	}
}

// look decides what to do with a queued job now. s.trig.mu is held.
func (s *Session) look(j *job, now time.Time) trigger.Step {
	t := s.trig
	g := s.gates(now)
	verdict, until := t.guard.Check(j.thread, now)
	switch {
	case verdict == trigger.Blocked:
		return trigger.Step{Action: trigger.Fail, Code: ipc.CodeThreadAutoBlocked}
	case g.lifecycle == LifecycleStopped:
		return trigger.Step{Action: trigger.Fail, Code: ipc.CodeNotRunning}
	}
	l := trigger.Look{Now: now, Queued: j.queued, Force: j.override.Requested, OperatorBusy: g.operatorBusy, AgentBusy: g.agentBusy}
	if verdict == trigger.RateLimited {
		l.RateUntil = until
	}
	step := t.cfg.Decide(l)
	switch step.Action {
	case trigger.Deliver:
		j.gate, j.applied = step.Gate, j.override.Requested && g.operatorBusy
	case trigger.Wait:
		if !j.deferred {
			j.deferred = true
			t.metrics.inc("trigger_deferred_total")
			if step.Code == ipc.CodeTriggerRateLimited {
				t.metrics.inc("trigger_rate_limited_total")
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
func (s *Session) pick(now time.Time) (ready *job, failed []failure, next time.Time) {
	t := s.trig
	t.mu.Lock()
	defer t.mu.Unlock()
	keep := t.queue[:0]
	for _, j := range t.queue {
		if ready != nil {
			keep = append(keep, j)
			continue
		}
		step := s.look(j, now)
		switch step.Action {
		case trigger.Deliver:
			ready = j
			t.active = j
		case trigger.Fail:
			failed = append(failed, failure{j, s.waitFailure(j, step.Code)})
		default:
			keep = append(keep, j)
			if next.IsZero() || step.Next.Before(next) {
				next = step.Next
			}
		}
	}
	clear(t.queue[len(keep):])
	t.queue = keep
	return ready, failed, next
}

func (s *Session) waitFailure(j *job, code string) ipc.TriggerResult {
	r := ipc.TriggerResult{Result: ipc.OutcomeFailed, ErrorCode: code}
	j.gate = trigger.GateEnforced
	switch code {
	case ipc.CodeDeferTimeout:
		r.Message = fmt.Sprintf("deferred past the limit (operator busy %s, agent busy %s): not delivered; the caller's fallback applies",
			s.trig.cfg.MaxDefer, s.trig.cfg.MaxBusyWait)
	case ipc.CodeThreadAutoBlocked:
		j.gate = trigger.GateNotEvaluated
		r.Message = "thread " + j.thread + " was blocked by the loop guard while this trigger waited"
	case ipc.CodeNotRunning:
		j.gate = trigger.GateNotEvaluated
		r.Message = "sup is stopping; not delivered"
	}
	return r
}

// deliverTriggers is the session's one delivery goroutine: it works
// through the queue until sup ends, so no two deliveries ever interleave.
func (s *Session) deliverTriggers() {
	t := s.trig
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		j, failed, next := s.pick(time.Now())
		for _, f := range failed {
			s.finish(f.j, f.r)
		}
		if j != nil {
			r := s.deliver(j)
			t.mu.Lock()
			t.active = nil
			t.mu.Unlock()
			s.finish(j, r)
			continue
		}
		wait := time.Hour
		if !next.IsZero() {
			wait = max(time.Until(next), time.Millisecond)
		}
		timer.Reset(wait)
		select {
		case <-t.kick:
		case <-timer.C:
		case <-s.done:
			s.dropQueue()
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
func (s *Session) dropQueue() {
	t := s.trig
	t.mu.Lock()
	q := t.queue
	t.queue = nil
	t.mu.Unlock()
	for _, j := range q {
		s.finish(j, s.waitFailure(j, ipc.CodeNotRunning))
	}
}

// deliver pastes j into the child (bringing a stopped child back first),
// submits it, and waits for the ack, retrying as the policy allows.
func (s *Session) deliver(j *job) ipc.TriggerResult {
	var r ipc.TriggerResult
	c := s.current()
	if c == nil {
		var code string
		var err error
		c, r.Fallback, code, err = s.bringBack()
		if err != nil {
			r.Result, r.ErrorCode, r.Message = ipc.OutcomeFailed, code, err.Error()
			return r
		}
	}
	cfg := s.trig.cfg
	delay := s.Plan().Profile.SubmitDelay
	for attempt := 1; ; attempt++ {
		r.Attempts = attempt
		payload := j.text
		if v := s.view.Load(); v != nil && v.bracketedPaste.Load() {
			payload = pasteStart + payload + pasteEnd
		}
		writeAt := time.Now()
		s.trig.mu.Lock()
		s.trig.guard.Attempt(j.thread, writeAt)
		if attempt == 1 {
			s.trig.metrics.observe("trigger_write_latency_ms", float64(writeAt.Sub(j.queued).Microseconds())/1000)
		} else {
			s.trig.metrics.inc("trigger_retry_total")
		}
		s.trig.mu.Unlock()
		_, err := s.in.injectTo(c.Master(), []byte(payload), true, delay, injectTimeout)
		switch {
		case errors.Is(err, errNoChild):
			return cancelled(r, "the agent ended before the trigger was written")
		case errors.Is(err, os.ErrDeadlineExceeded):
			r.Result, r.ErrorCode = ipc.OutcomeTimeout, ipc.CodeAckTimeout
			r.Message = fmt.Sprintf("the agent did not read its input within %s", injectTimeout)
			return r
		case err != nil:
			return cancelled(r, "write to the agent's pty: "+err.Error())
		}
		s.log.Info("trigger_written", "trigger_id", j.id, "attempt", attempt, "bytes", len(payload), "bracketed", len(payload) != len(j.text))
		by, gone := s.waitAck(c, j, writeAt)
		switch {
		case gone:
			return cancelled(r, "the agent ended before it acknowledged the trigger")
		case by != "":
			r.Result, r.AckedBy, r.DeliveredAt = ipc.OutcomeDelivered, by, writeAt.UnixMilli()
			return r
		}
		trace := s.payloadOnScreen(j)
		retry, backoff := cfg.AfterTimeout(attempt, trace)
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
	}
}

func cancelled(r ipc.TriggerResult, why string) ipc.TriggerResult {
	r.Result, r.ErrorCode, r.Message = ipc.OutcomeFailed, ipc.CodeTriggerCancelled, why
	return r
}

// waitAck waits up to the job's ack timeout for the agent to take the
// trigger; gone reports that c ended (or was replaced) meanwhile.
func (s *Session) waitAck(c *proc.Child, j *job, writeAt time.Time) (by string, gone bool) {
	deadline := time.NewTimer(time.Until(writeAt.Add(j.ackTimeout)))
	defer deadline.Stop()
	tick := time.NewTicker(ackPoll)
	defer tick.Stop()
	marker := s.trig.cfg.Marker(j.id)
	for {
		if s.current() != c {
			return "", true
		}
		if by := s.acked(j, writeAt, marker); by != "" {
			return by, false
		}
		select {
		case <-deadline.C:
			return s.acked(j, writeAt, marker), false
		case <-c.Done():
			return "", true
		case <-s.trig.kick:
		case <-tick.C:
		}
	}
}

// acked says what, if anything, shows that the agent took the trigger
// written at writeAt: a submitted-prompt hook naming it, the agent turning
// busy, or the configured marker on the screen.
func (s *Session) acked(j *job, writeAt time.Time, marker string) string {
	s.mu.Lock()
	st := s.act.State(time.Now())
	prompt, promptAt := s.lastPrompt, s.lastPromptAt
	s.mu.Unlock()
	if prompt != "" && !promptAt.Before(writeAt) &&
		(strings.Contains(prompt, "id="+j.id) || strings.Contains(prompt, head(j.p.Prompt))) {
		return "hook"
	}
	if st.Activity == activity.Busy && !st.Since.Before(writeAt) {
		return "activity"
	}
	if marker != "" {
		if v := s.view.Load(); v != nil && strings.Contains(v.model.Snapshot().Text, marker) {
			return "marker"
		}
	}
	return ""
}

// minTrace is the shortest head worth looking for on the screen: a
// shorter one would be found in unrelated text.
const minTrace = 8

// payloadOnScreen reports whether the trigger's text may still sit in the
// agent's input box: a draft, or its first line visible on the screen (a
// head shorter than minTrace cannot tell, and counts as no trace).
func (s *Session) payloadOnScreen(j *job) bool {
	s.mu.Lock()
	draft := s.draft
	s.mu.Unlock()
	if draft != "" {
		return true
	}
	h := head(j.text)
	v := s.view.Load()
	return v != nil && utf8.RuneCountInString(h) >= minTrace && strings.Contains(v.model.Snapshot().Text, h)
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

// bringBack restarts a child that is not running — resuming its exact
// conversation when its id is known, else fresh — and waits until it is
// ready for input.
func (s *Session) bringBack() (c *proc.Child, mode, code string, err error) {
	s.mu.Lock()
	code = ipc.CodeSpawnFailed
	if s.agentSessionID != "" {
		code = ipc.CodeResumeFailed
	}
	s.mu.Unlock()
	ready := s.trig.cfg.ReadyTimeout
	ctx, cancel := context.WithTimeout(context.Background(), ready)
	defer cancel()
	s.log.Info("trigger_fallback", "code_if_failed", code)
	res, err := s.request(ctx, control{kind: ctrlResume})
	if err != nil {
		return nil, "", code, fmt.Errorf("bring the agent back: %v", err)
	}
	rr := res.(ipc.RestartResult)
	c = s.current()
	if c == nil || c.PID() != rr.PID {
		return nil, rr.Mode, code, fmt.Errorf("the agent (%s) ended right after it started", rr.Mode)
	}
	debounce := s.Plan().Config.Activity.ReadyDebounce
	tick := time.NewTicker(ackPoll)
	defer tick.Stop()
	for !s.readyAfterSpawn(c, debounce) {
		select {
		case <-c.Done():
			exitCode, sig := c.Exit()
			return nil, rr.Mode, code, fmt.Errorf("the agent (%s) exited (%s) before it was ready", rr.Mode, exitInfo(exitCode, sig, "", time.Now()).Describe())
		case <-ctx.Done():
			return nil, rr.Mode, code, fmt.Errorf("the agent (%s) was not ready within %s", rr.Mode, ready)
		case <-tick.C:
		}
	}
	return c, rr.Mode, "", nil
}

// readyAfterSpawn: the activity says ready, or — for an agent whose
// profile cannot tell — it has printed something and then gone quiet.
func (s *Session) readyAfterSpawn(c *proc.Child, debounce time.Duration) bool {
	s.mu.Lock()
	st := s.act.State(time.Now())
	s.mu.Unlock()
	switch st.Activity {
	case activity.Ready:
		return true
	case activity.Unknown:
		last := s.lastOutput.Load()
		return last >= c.StartedAt().UnixMilli() && time.Since(time.UnixMilli(last)) >= debounce
	}
	return false
}
