//go:build linux

package supervisor_test

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

const staleQuestion = "Should I delete the 3 stale branches?"

// TestE2EAskedHoldsTrigger: a turn that ends with a question is ready,
// reason asked, the question in the queue; a trigger that is not its
// answer is held with AGENT_ASKED (the question in its message) and types
// nothing; after the human answers in the pane it goes as its own turn; a
// trigger --answering goes at once. (Claude Code's hooks are sent as its
// hooks would send them; internal/testing/agenttest does the same with the real
// agent.)
func TestE2EAskedHoldsTrigger(t *testing.T) {
	// Not parallel: its hooks and trigger race a 3 s ack_timeout and 1 s quiet
	// window that tests beside it stretched past on a loaded machine.
	r := newRig(t, triggerConfig)
	rec := filepath.Join(r.dir, "rec")
	pane := r.start("-ready", "-raw", "-ack", "-record", rec)
	testutil.WaitUntil(t, 20*time.Second, "ready", func() bool { return r.state("doc").Activity == "ready" })
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"I found 3 stale branches: ` + "`old-ui`, `tmp`, `wip`" + `.\n\n` + staleQuestion + `"}`)
	st := r.state("doc")
	if st.Activity != "ready" || st.Reason != "asked" || st.Summary != staleQuestion || st.WaitingSince == 0 {
		t.Fatalf("after the question: %+v", st)
	}
	out := r.mustSup("queue")
	if !strings.Contains(out, "asked") || !strings.Contains(out, staleQuestion) {
		t.Fatalf("sup queue does not show the question:\n%s", out)
	}
	if out := r.mustSup("ls"); !strings.Contains(out, " ready:asked ") {
		t.Fatalf("sup ls does not mark the question:\n%s", out)
	}

	// Held: deferred AGENT_ASKED at once, with the question; nothing typed.
	out, err := r.sup("trigger", "--no-wait", "--id", "t-held", "--thread", "th_01", "doc", "Read unread messages for thread th_01 and continue")
	if err != nil || !strings.Contains(out, "deferred t-held") || !strings.Contains(out, "AGENT_ASKED") || !strings.Contains(out, staleQuestion) {
		t.Fatalf("sup trigger: %v\n%s", err, out)
	}
	time.Sleep(700 * time.Millisecond) // several rechecks (100ms): still held
	if got := r.recorded(rec); got != "" {
		t.Fatalf("a held trigger typed %q", got)
	}
	if st := r.state("doc"); st.PendingTriggers != 1 || st.Reason != "asked" {
		t.Fatalf("while held: pending %d reason %q", st.PendingTriggers, st.Reason)
	}

	// The human answers in the pane; the agent's next turn ends; the held
	// trigger follows as its own turn.
	r.tm.SendLiteral(pane, "no")
	r.tm.SendKeys(pane, "Enter")
	testutil.WaitUntil(t, 20*time.Second, "the human's answer reached the agent", func() bool { return r.recorded(rec) == "no\r" })
	r.hook(`{"hook_event_name":"UserPromptSubmit","prompt":"no"}`)
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"Kept them."}`)
	r.waitTriggerCount("delivered", 1)
	got := r.recorded(rec)
	if !strings.HasPrefix(got, "no\r[BRIDGE_TRIGGER id=t-held thread=th_01") || strings.Count(got, "\r") != 2 {
		t.Fatalf("the agent read %q: want the human's answer, then the trigger as its own submit", got)
	}

	// Asked again: a trigger that says it answers goes at once.
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"` + staleQuestion + `"}`)
	res := r.trigger(ipc.TriggerParams{TriggerID: "t-answer", Prompt: "yes, delete them", Answering: true, Wait: true})
	if res.Result != ipc.OutcomeDelivered {
		t.Fatalf("--answering: %+v, want delivered at once", res)
	}
	// And a thread the question names answers it too.
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"Should I reply on thread th_07 now?"}`)
	res = r.trigger(ipc.TriggerParams{TriggerID: "t-thread", ThreadID: "th_07", Prompt: "reply", Wait: true})
	if res.Result != ipc.OutcomeDelivered {
		t.Fatalf("named thread: %+v, want delivered at once", res)
	}
	// A statement with a question mark in code is a finished turn.
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"Replaced it with ` + "`a ? b : c`" + `."}`)
	if st := r.state("doc"); st.Reason != "stopped" {
		t.Fatalf("a ? in code: reason %q, want stopped", st.Reason)
	}
	recs := r.audit()
	if len(recs) != 3 || recs[0]["trigger_id"] != "t-held" || recs[0]["result"] != "delivered" {
		t.Fatalf("audit: %v", recs)
	}
}

// TestE2EAskedForcedIsAudited: a force with its reason delivers into an
// asked session, audited as an applied override; the held trigger's wait
// past max_busy_wait fails AGENT_ASKED with the question.
func TestE2EAskedForcedAndTimeout(t *testing.T) {
	t.Parallel()
	r := newRig(t, triggerConfig+"  max_busy_wait: 1s\n")
	rec := filepath.Join(r.dir, "rec")
	r.start("-ready", "-raw", "-ack", "-record", rec)
	testutil.WaitUntil(t, 20*time.Second, "ready", func() bool { return r.state("doc").Activity == "ready" })
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"` + staleQuestion + `"}`)
	res := r.trigger(ipc.TriggerParams{TriggerID: "t-late", Prompt: "continue", Wait: true})
	if res.Result != ipc.OutcomeFailed || res.ErrorCode != ipc.CodeAgentAsked || !strings.Contains(res.Message, staleQuestion) {
		t.Fatalf("held past max_busy_wait: %+v, want failed AGENT_ASKED with the question", res)
	}
	res = r.trigger(ipc.TriggerParams{TriggerID: "t-force", Prompt: "continue", ForceOverride: true,
		OverrideReason: "human_override: I read it", Wait: true})
	if res.Result != ipc.OutcomeDelivered {
		t.Fatalf("forced: %+v", res)
	}
	recs := r.audit()
	if len(recs) != 2 || recs[1]["force_override_applied"] != true || recs[1]["collision_gate"] != "bypassed" {
		t.Fatalf("audit: %v", recs)
	}
}

// TestE2EStalled: a busy agent whose screen only redraws its spinner and
// counter for longer than stall_after is stalled, in the queue, with what
// it was doing; explain says what was last seen; a line of real work ends
// it at once.
func TestE2EStalled(t *testing.T) {
	// Not parallel: it reads the stall between two deadlines of the fake agent
	// (stall_after 1s, work after 12s), which tests beside it stretched. 12 s,
	// not 6: four sups (queue, ls, explain twice) read the stall before the
	// work comes, and at the suite's busiest the work came first (twice,
	// when they and the state polls were race-built processes).
	r := newRig(t, "")
	r.write("config/sup/profiles/claude.yaml", testutil.FakeAgentProfile+"stall_after: 1s\n")
	r.start("-spinner", "-work-after", "12s")
	// The stall's end and its return are read from the published
	// activity events, not polled: the work leaves "working" for only
	// stall_after (1 s) before the spinner stalls it again, a window a
	// poll on a loaded machine missed (a whole run under perf). Subscribed
	// before the hooks, so that the first stall is among the events.
	sub := r.subscribe(ipc.EventActivity)
	r.hook(`{"hook_event_name":"UserPromptSubmit","prompt":"run the tests"}`)
	r.hook(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."}}`)
	testutil.WaitUntil(t, 20*time.Second, "stalled", func() bool { return r.state("doc").Reason == "stalled" })
	st := r.state("doc")
	if st.Activity != "busy" || st.WaitingSince == 0 || st.Summary != "Bash: go test ./..." {
		t.Fatalf("stalled: %+v", st)
	}
	if out := r.mustSup("queue"); !strings.Contains(out, "stalled") {
		t.Fatalf("sup queue does not list the stall:\n%s", out)
	}
	if out := r.mustSup("ls"); !strings.Contains(out, " busy:stalled ") {
		t.Fatalf("sup ls does not mark the stall:\n%s", out)
	}
	var ex ipc.ExplainResult
	if err := json.Unmarshal([]byte(r.mustSup("explain", "--json", "doc")), &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Progress == nil || ex.Progress.What != "hook:PreToolUse" || ex.Progress.At == 0 || ex.Progress.StallAfterMS != 1000 {
		t.Fatalf("explain progress: %+v", ex.Progress)
	}
	if out := r.mustSup("explain", "doc"); !strings.Contains(out, "progress last seen hook:PreToolUse (") || !strings.Contains(out, "stalled after 1s without") {
		t.Fatalf("sup explain does not say what was last seen:\n%s", out)
	}
	// The events up to the stall first: an earlier "working" (the hooks')
	// is not the work's.
	activityUntil(t, sub, 30*time.Second, "the stall's event", func(a ipc.ActivityEvent) bool { return a.Reason == "stalled" })
	activityUntil(t, sub, 30*time.Second, "real work ends the stall", func(a ipc.ActivityEvent) bool {
		return a.Reason == "working" && a.WaitingSince == 0
	})
	// Only the spinner again: stalled again after stall_after.
	activityUntil(t, sub, 30*time.Second, "stalled again", func(a ipc.ActivityEvent) bool { return a.Reason == "stalled" })
}

// TestE2EElicitation: Claude Code's Elicitation hook (an MCP server asks
// the human) is a question waiting on the human.
func TestE2EElicitation(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	r.start("-echo")
	r.hook(`{"hook_event_name":"UserPromptSubmit","prompt":"book it"}`)
	r.hook(`{"hook_event_name":"Elicitation","mcp_server_name":"travel","message":"Which seat do you want?","mode":"form","requested_schema":{"type":"object"}}`)
	st := r.state("doc")
	if st.Activity != "needs_confirmation" || st.Reason != "question" || st.Summary != "travel: Which seat do you want?" || st.WaitingSince == 0 {
		t.Fatalf("after Elicitation: %+v", st)
	}
}

// TestE2ENotifyAskedStalled: a question and a stall are waits like any
// other: each is notified once per episode (supervisor/notify's policy),
// naming its reason and summary.
func TestE2ENotifyAskedStalled(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	file := filepath.Join(r.dir, "notified")
	r.write("config/sup/config.yaml", "notify:\n  after: 1s\n  command: [sh, -c, 'env >> \"$0\"; echo --END-- >> \"$0\"', "+strconv.Quote(file)+"]\n")
	r.write("config/sup/profiles/claude.yaml", testutil.FakeAgentProfile+"stall_after: 1s\n")
	r.start("-echo")
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"` + staleQuestion + `"}`)
	testutil.WaitUntil(t, 20*time.Second, "the question notified", func() bool { return len(notifications(file)) == 1 })
	if n := notifications(file)[0]; n["SUP_REASON"] != "asked" || n["SUP_SUMMARY"] != staleQuestion {
		t.Fatalf("the question's notification: %v", n)
	}
	time.Sleep(2500 * time.Millisecond)
	if got := len(notifications(file)); got != 1 {
		t.Fatalf("%d notifications for one question", got)
	}
	// Work starts, then nothing happens: a stall, notified once.
	r.hook(`{"hook_event_name":"UserPromptSubmit","prompt":"go on"}`)
	r.hook(`{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"command":"https://slow.example"}}`)
	testutil.WaitUntil(t, 10*time.Second, "the stall notified", func() bool { return len(notifications(file)) == 2 })
	if n := notifications(file)[1]; n["SUP_REASON"] != "stalled" || n["SUP_SUMMARY"] != "WebFetch: https://slow.example" {
		t.Fatalf("the stall's notification: %v", n)
	}
	time.Sleep(2500 * time.Millisecond)
	if got := len(notifications(file)); got != 2 {
		t.Fatalf("%d notifications, want one per episode", got)
	}
}

// TestE2EAskedAnswer: `sup answer NAME TEXT` answers a question a
// finished turn asked: the session shows a prompt id (stable while the
// question is open) taking text; the text is pasted as one bracketed
// paste and submitted as the next turn, acked when the turn starts, and
// audited as an answer; the trigger held with AGENT_ASKED goes out after
// the answer's turn as its own.
func TestE2EAskedAnswer(t *testing.T) {
	// Not parallel: the answer is acknowledged within the 3 s ack_timeout or
	// fails; tests beside it stretched that past on a loaded machine.
	r := newRig(t, triggerConfig)
	rec := filepath.Join(r.dir, "rec")
	pane := r.start("-ready", "-raw", "-bracketed", "-ack", "-record", rec)
	testutil.WaitUntil(t, 20*time.Second, "ready, bracketed paste on", func() bool {
		st := r.state("doc")
		return st.Activity == "ready" && st.BracketedPaste
	})
	if st := r.state("doc"); st.PromptID != "" {
		t.Fatalf("a finished turn that asked nothing has prompt %s", st.PromptID)
	}
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"` + staleQuestion + `"}`)
	st := r.state("doc")
	if st.Reason != "asked" || st.PromptID == "" || strings.Join(st.PromptChoices, ",") != "text" {
		t.Fatalf("asked: %+v, want a prompt id taking text", st)
	}
	time.Sleep(100 * time.Millisecond)
	if again := r.state("doc"); again.PromptID != st.PromptID {
		t.Fatalf("the prompt id changed while the question stayed open: %s, then %s", st.PromptID, again.PromptID)
	}
	if _, err := r.sup("trigger", "--no-wait", "--id", "t-held", "doc", "continue"); err != nil {
		t.Fatal(err)
	}

	type answered struct {
		out string
		err error
	}
	done := make(chan answered, 1)
	go func() {
		out, err := r.sup("answer", "--expect", st.PromptID, "doc", "no, keep\x1b[201~ them")
		done <- answered{out, err}
	}()
	const typed = "\x1b[200~no, keep[201~ them\x1b[201~\r"
	testutil.WaitUntil(t, 20*time.Second, "the answer typed", func() bool { return r.recorded(rec) == typed })
	select {
	case a := <-done:
		t.Fatalf("the answer returned before its turn started: %q %v", a.out, a.err)
	case <-time.After(300 * time.Millisecond):
	}
	if got := r.state("doc"); got.Reason != "asked" || got.PendingTriggers != 1 {
		t.Fatalf("the held trigger went with the answer: %+v", got)
	}
	r.hook(`{"hook_event_name":"UserPromptSubmit","prompt":"no, keep[201~ them"}`)
	var a answered
	select {
	case a = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("sup answer did not return after the turn started")
	}
	if a.err != nil || !strings.Contains(a.out, "answered doc's prompt "+st.PromptID) || !strings.Contains(a.out, "acked by hook, now busy") {
		t.Fatalf("sup answer: %v\n%s", a.err, a.out)
	}
	if got := r.state("doc"); got.Reason == "asked" || got.PromptID != "" {
		t.Fatalf("after the answer: %+v, want the question gone", got)
	}
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"Kept them."}`)
	r.waitTriggerCount("delivered", 1)
	if got := r.recorded(rec); !strings.HasPrefix(got, typed+"\x1b[200~[BRIDGE_TRIGGER id=t-held") || strings.Count(got, "\r") != 2 {
		t.Fatalf("the agent read %q: want the answer, then the trigger as its own submit", got)
	}
	if recs := r.audit(); len(recs) != 2 || recs[0]["kind"] != "answer" || recs[0]["outcome"] != "answered" ||
		recs[0]["reason"] != "asked" || recs[0]["dialog"] != "asked" || recs[1]["trigger_id"] != "t-held" {
		t.Fatalf("audit: %v, want the answer, then the trigger", recs)
	}

	// A pane key since the question appeared is the human answering it:
	// OPERATOR_BUSY, nothing typed.
	r.hook(`{"hook_event_name":"Stop","last_assistant_message":"` + staleQuestion + `"}`)
	before := r.recorded(rec)
	r.tm.SendLiteral(pane, "n")
	testutil.WaitUntil(t, 20*time.Second, "the human's key", func() bool { return r.recorded(rec) == before+"n" })
	if _, err := r.answer(ipc.AnswerParams{Choice: "yes"}); errCode(err) != ipc.CodeOperatorBusy {
		t.Fatalf("answer while the human types: %v, want OPERATOR_BUSY", err)
	}
	// Text that is only control characters, or longer than a trigger may
	// be, types nothing.
	if _, err := r.answer(ipc.AnswerParams{Choice: "\x1b\r\x03"}); errCode(err) != ipc.CodeBadRequest {
		t.Fatalf("control characters only: %v, want BAD_REQUEST", err)
	}
	if _, err := r.answer(ipc.AnswerParams{Choice: strings.Repeat("x", 8<<10+1)}); errCode(err) != ipc.CodePayloadTooLarge {
		t.Fatalf("9 KiB of text: %v, want PAYLOAD_TOO_LARGE", err)
	}
	if got := r.recorded(rec); got != before+"n" {
		t.Fatalf("refused answers typed %q", strings.TrimPrefix(got, before))
	}
}
