//go:build linux

package supervisor_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// startConfirm starts fakeagent -raw -confirm QUESTION (and args) under
// the confirm profile and waits for its prompt in state.
func (r *rig) startConfirm(question string, args ...string) (pane string, st ipc.State) {
	r.t.Helper()
	r.write("config/sup/profiles/confirm.yaml", testutil.ConfirmProfile)
	argv := append([]string{r.bins.Sup, "start", "--profile", "confirm", filepath.Join(r.dir, "doc.md"), "--",
		"fakeagent", "-raw", "-confirm", question}, args...)
	pane = r.tm.NewWindowDir(r.dir, r.env, argv...)
	r.tm.WaitFor(r.t, pane, "fakeagent ready", 10*time.Second)
	return pane, r.waitPrompt("")
}

// waitPrompt waits for an open prompt other than old and returns state.
func (r *rig) waitPrompt(old string) ipc.State {
	r.t.Helper()
	var st ipc.State
	testutil.WaitUntil(r.t, 10*time.Second, "a prompt in state", func() bool {
		st = r.state("doc")
		return st.PromptID != "" && st.PromptID != old
	})
	return st
}

func (r *rig) answer(p ipc.AnswerParams) (ipc.AnswerResult, error) {
	r.t.Helper()
	var res ipc.AnswerResult
	err := r.call(ipc.MethodAnswer, p, &res)
	return res, err
}

func errCode(err error) ipc.Code {
	var ie *ipc.Error
	if errors.As(err, &ie) {
		return ie.Code
	}
	return ""
}

// TestE2EAnswer: the prompt's identity, options and choices in state;
// answers by id with the profile's keys, refusals that type nothing, the
// screen's acknowledgement, bad choices naming the valid ones, and one
// audit line per answer.
func TestE2EAnswer(t *testing.T) {
	// Not parallel: it reads OperatorBusy, true only within the quiet window after a key,
	// by polling the state (a slow poll beside other tests misses it). The
	// window is 5 s: at 1 s the poll missed it with two busy loops beside
	// the whole suite.
	r := newRig(t, "activity: {quiet_window: 5s}\n")
	rec := filepath.Join(r.dir, "typed")
	pane, st := r.startConfirm("rm build", "-record", rec, "-reask", "300ms")
	if st.Activity != "needs_confirmation" || st.Summary != "rm build" || len(st.PromptOptions) != 2 ||
		st.PromptOptions[1] != (ipc.PromptOption{Choice: "2", Label: "No"}) || strings.Join(st.PromptChoices, ",") != "yes,no,1-2" {
		t.Fatalf("at the prompt: %+v", st)
	}
	for _, c := range []struct {
		p    ipc.AnswerParams
		code ipc.Code
		msg  string
	}{
		{ipc.AnswerParams{Choice: "yes", Expect: "0123456789abcdef"}, ipc.CodePromptChanged, "the prompt changed"},
		{ipc.AnswerParams{Choice: "always", Expect: st.PromptID}, ipc.CodeBadRequest, "valid choices: yes, no, 1-2"},
		{ipc.AnswerParams{Choice: "go on then", Expect: st.PromptID}, ipc.CodeBadRequest, "takes no free text"},
		{ipc.AnswerParams{Choice: ""}, ipc.CodeBadRequest, "params need choice"},
		{ipc.AnswerParams{Choice: "yes", ForceOverride: true}, ipc.CodeBadRequest, "override"},
	} {
		if _, err := r.answer(c.p); errCode(err) != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("answer %+v: %v, want %s (%s)", c.p, err, c.code, c.msg)
		}
	}
	if got := r.recorded(rec); got != "" {
		t.Fatalf("refused answers typed %q", got)
	}
	res, err := r.answer(ipc.AnswerParams{Choice: "yes", Expect: st.PromptID, Requester: "e2e"})
	if err != nil || res.PromptID != st.PromptID || res.AckedBy == "" || res.Dialog != "permission" {
		t.Fatalf("answer yes: %+v %v", res, err)
	}
	r.tm.WaitFor(t, pane, "answered: y", 5*time.Second)
	// The question comes back: a new prompt, a new id; the old one is stale.
	st2 := r.waitPrompt(st.PromptID)
	if _, err := r.answer(ipc.AnswerParams{Choice: "no", Expect: st.PromptID}); errCode(err) != ipc.CodePromptChanged {
		t.Fatalf("a stale expect: %v, want PROMPT_CHANGED", err)
	}
	// The human types: refused, until forced.
	r.tm.SendKeys(pane, "x")
	testutil.WaitUntil(t, 20*time.Second, "the key to reach sup", func() bool { return r.state("doc").OperatorBusy })
	if _, err := r.answer(ipc.AnswerParams{Choice: "2", Expect: st2.PromptID}); errCode(err) != ipc.CodeOperatorBusy {
		t.Fatalf("an answer while the human types: %v, want OPERATOR_BUSY", err)
	}
	if _, err := r.answer(ipc.AnswerParams{Choice: "2", Expect: st2.PromptID, ForceOverride: true, OverrideReason: "human_override: e2e"}); err != nil {
		t.Fatalf("forced: %v", err)
	}
	r.tm.WaitFor(t, pane, "answered: 2", 5*time.Second)
	if got := r.recorded(rec); got != "yx2" {
		t.Fatalf("typed %q, want the answers y and 2 around the human's x", got)
	}
	var lines []string
	for _, a := range r.audit() {
		if a["kind"] == "answer" {
			lines = append(lines, a["outcome"].(string)+":"+a["choice"].(string)+":"+a["error_code"].(string)+":"+a["collision_gate"].(string))
		}
	}
	want := "refused:yes:PROMPT_CHANGED:not_evaluated refused:always:BAD_REQUEST:not_evaluated refused:go on then:BAD_REQUEST:not_evaluated " +
		"answered:yes::enforced refused:no:PROMPT_CHANGED:not_evaluated refused:2:OPERATOR_BUSY:enforced answered:2::bypassed"
	if strings.Join(lines, " ") != want {
		t.Fatalf("audit answers:\n%s\nwant\n%s", strings.Join(lines, " "), want)
	}
}

// TestE2EAnswerNoPrompt: no prompt open is NO_PROMPT, nothing typed.
func TestE2EAnswerNoPrompt(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	r.start("-raw", "-echo")
	if _, err := r.answer(ipc.AnswerParams{Choice: "yes"}); errCode(err) != ipc.CodeNoPrompt {
		t.Fatalf("answer without a prompt: %v, want NO_PROMPT", err)
	}
	out, err := r.sup("answer", "doc", "yes")
	var se *testutil.SupError
	if !errors.As(err, &se) || !strings.Contains(se.Stderr, "NO_PROMPT") || out != "" {
		t.Fatalf("sup answer without a prompt: %q %v", out, err)
	}
}

// explain runs sup explain --json on the rig's session.
func (r *rig) explain() ipc.ExplainResult {
	r.t.Helper()
	out := r.mustSup("explain", "--json", "doc")
	var e ipc.ExplainResult
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		r.t.Fatalf("sup explain --json: %v: %s", err, out)
	}
	return e
}

// decided is the signal explain marks as deciding.
func decided(e ipc.ExplainResult) ipc.ExplainSignal {
	for _, s := range e.Signals {
		if s.Decided {
			return s
		}
	}
	return ipc.ExplainSignal{}
}

// TestE2EExplain: sup explain names the deciding signal of a
// screen-decided session (with the lines the rule matched), then a
// hook-decided one (the screen's verdict still listed), and prints it.
func TestE2EExplain(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	r.startConfirm("rm build")
	e := r.explain()
	if e.Source != "screen" || e.Rule != "screen:confirm" || decided(e).Rule != "screen:confirm" || e.Screen == nil ||
		strings.Join(e.Screen.Lines, "|") != "title: [?] rm build" || e.PromptID == "" || e.Since == 0 {
		t.Fatalf("screen-decided: %+v (screen %+v)", e, e.Screen)
	}
	r.hook(`{"session_id":"c1","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -r build"}}`)
	e = r.explain()
	if e.Source != "hook" || decided(e).Rule != "hook:PermissionRequest" || e.Summary != "Bash: rm -r build" || len(e.Signals) < 3 || e.Screen.Rule != "confirm" {
		t.Fatalf("hook-decided: %+v", e)
	}
	out := r.mustSup("explain", "doc")
	for _, want := range []string{"activity needs_confirmation (permission)", "decided by hook hook:PermissionRequest", "* hook", "screen rule confirm → needs_confirmation", "  | title: [?] rm build"} {
		if !strings.Contains(out, want) {
			t.Fatalf("sup explain lacks %q:\n%s", want, out)
		}
	}
}

// TestE2EExplainForeground: a profile without screen rules is decided by
// the pty's foreground process group, and explain shows those facts. The
// fakeagent is a program, not the login shell: reading its terminal, it
// is ready by rule program:reading with its last line as summary.
func TestE2EExplainForeground(t *testing.T) {
	t.Parallel()
	r := newRig(t, "activity: {ready_debounce: 100ms}\n")
	argv := []string{r.bins.Sup, "start", "--profile", "shell", filepath.Join(r.dir, "doc.md"), "--", "fakeagent"}
	pane := r.tm.NewWindowDir(r.dir, r.env, argv...)
	r.tm.WaitFor(t, pane, "fakeagent ready", 10*time.Second)
	var e ipc.ExplainResult
	// Busy while its start-up output is recent; then it waits in a read.
	testutil.WaitUntil(t, 10*time.Second, "the foreground verdict reading", func() bool {
		e = r.explain()
		return e.Source == "screen" && e.Rule == "screen:program:reading"
	})
	st := r.state("doc")
	if e.Summary == "" || e.Process == nil || e.Process.ChildPID != st.PID || e.Process.ForegroundGroup != st.PID {
		t.Fatalf("foreground-decided: %+v (process %+v, child %d)", e, e.Process, st.PID)
	}
	// The fakeagent waits in a read of the terminal: the facts say so.
	if p := e.Process; p.Wait != "reading" || p.Rule != "foreground:reading" ||
		!strings.Contains(p.Call, "(the terminal)") {
		t.Fatalf("the foreground facts: rule %s, %+v", e.Rule, p)
	}
	if out := r.mustSup("explain", "doc"); !strings.Contains(out, "decided by screen screen:program:reading") ||
		!strings.Contains(out, "process child ") || !strings.Contains(out, ": reading (task ") {
		t.Fatalf("sup explain:\n%s", out)
	}
}

// TestE2EAnswerCommandSwapped: the screen shows one question; a
// PermissionRequest hook (here sent by the test, as one from the agent's
// own tree would be: it is the agent's word either way) then says the
// prompt is about `ls -la`. What is shown for approval changed, so the
// prompt id changes: an answer with the id read before the swap is
// PROMPT_CHANGED and types nothing; one with the new id answers.
func TestE2EAnswerCommandSwapped(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	pane, st := r.startConfirm("delete the build")
	r.hook(`{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls -la"}}`, "--agent", "claude")
	var swapped ipc.State
	testutil.WaitUntil(t, 10*time.Second, "the hook's command in state", func() bool {
		swapped = r.state("doc")
		return swapped.PromptDetail == "ls -la" && swapped.PromptID != ""
	})
	if swapped.PromptID == st.PromptID {
		t.Fatalf("the command shown changed to %q under the same prompt id %s", swapped.PromptDetail, st.PromptID)
	}
	if _, err := r.answer(ipc.AnswerParams{Choice: "yes", Expect: st.PromptID}); errCode(err) != ipc.CodePromptChanged {
		t.Fatalf("an answer with the id read before the swap: %v, want PROMPT_CHANGED", err)
	}
	if _, err := r.answer(ipc.AnswerParams{Choice: "yes", Expect: swapped.PromptID}); err != nil {
		t.Fatalf("an answer with the new id: %v", err)
	}
	r.tm.WaitFor(t, pane, "answered: y", 5*time.Second)
}
