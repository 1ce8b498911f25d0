//go:build linux

package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// answerNowConfig: a quiet window longer than the time from a typed
// request to Claude's permission prompt, so the request's keys are still
// "recent" when the answer comes (issue 22: they refused it for 20 s).
const answerNowConfig = "activity: {quiet_window: 6s}\ntrigger: {recheck: 200ms, ack_timeout: 20s}\n"

// startAnswerNowClaude starts real Claude Code with sup's hooks (so the
// PermissionRequest hook speaks before the dialog is drawn) and follows
// its activity events.
func startAnswerNowClaude(t *testing.T) (*Agent, func(string) ipc.Event) {
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }),
		WithSupConfig(answerNowConfig))
	return a, a.WatchActivity()
}

// askPermission types a request that raises a permission prompt and
// returns the prompt_id of the first needs_confirmation event, when it
// came, and the file the command would create.
func askPermission(t *testing.T, a *Agent, next func(string) ipc.Event, name string) (string, time.Time, string) {
	t.Helper()
	typed := time.Now()
	a.Type("RUN: touch " + name)
	ev := next("needs_confirmation")
	for ev.At < typed.UnixMilli() {
		// The last prompt's second needs_confirmation event (the screen
		// saw the dialog, then its PermissionRequest hook told it
		// better: the same prompt and id, a new summary) is still queued.
		ev = next("needs_confirmation")
	}
	at := time.Now()
	id, _ := ev.Data["prompt_id"].(string)
	if id == "" {
		t.Fatalf("the first needs_confirmation event has no prompt_id: %v", ev.Data)
	}
	return id, at, filepath.Join(a.Dir, name)
}

// TestClaudeAnswerRightAway (issue 22): the request typed in the pane,
// then, as soon as the first needs_confirmation event arrives, `sup answer
// --expect <its prompt_id> yes` is not refused (neither OPERATOR_BUSY for
// the request's keys nor PROMPT_CHANGED while the dialog is drawn) and the
// command runs; `no` at 1 s, 2 s and 4 s ends needs_confirmation quickly
// every time, and a trigger sent next is delivered.
func TestClaudeAnswerRightAway(t *testing.T) {
	t.Parallel()
	a, next := startAnswerNowClaude(t)
	answerRightAway(t, a, next, ClaudeReady)
}

// TestCodexAnswerRightAway (issue 22): the same for real Codex, whose
// approval sup reads from the screen alone (no hook speaks first): the
// first needs_confirmation event's prompt_id answers yes with --expect,
// a no at 1 s, 2 s and 4 s ends needs_confirmation quickly, and the
// trigger sent next is delivered.
func TestCodexAnswerRightAway(t *testing.T) {
	t.Parallel()
	a := startReadyCodex(t, WithSupConfig(answerNowConfig))
	answerRightAway(t, a, a.WatchActivity(), CodexPrompt)
}

// answerRightAway runs issue 22's answer-the-moment-it-asks sequence on
// an agent that shows ready (its idle input line) between turns: yes with
// the first event's id runs the command; no at 1 s, 2 s and 4 s ends
// needs_confirmation within a loose bound (the goal, 1 s, is measured by
// TestClaudeAnswerFigures), nothing runs, and a trigger is delivered.
func answerRightAway(t *testing.T, a *Agent, next func(string) ipc.Event, ready string) {
	t.Run("yes", func(t *testing.T) {
		id, _, file := askPermission(t, a, next, "now-yes.txt")
		r, code, err := answer(a, "--expect", id, a.Doc, "yes")
		if err != nil || r.PromptID != id {
			dumpSupLog(t, a)
			t.Fatalf("answer yes with the first event's id: %+v exit %d %v", r, code, err)
		}
		testutil.WaitUntil(t, 30*time.Second, "the approved command's file", func() bool { _, err := os.Stat(file); return err == nil })
		waitReady(t, a, ready)
	})

	for i, delay := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		t.Run(fmt.Sprintf("no_after_%s", delay), func(t *testing.T) {
			id, at, file := askPermission(t, a, next, fmt.Sprintf("now-no-%d.txt", i))
			time.Sleep(time.Until(at.Add(delay)))
			r, code, err := answer(a, "--expect", id, a.Doc, "no")
			if err != nil {
				dumpSupLog(t, a)
				t.Fatalf("answer no after %s: %+v exit %d %v", delay, r, code, err)
			}
			answered := time.Now()
			testutil.WaitUntil(t, ScreenTimeout, "needs_confirmation to end", func() bool { return a.State().Activity != "needs_confirmation" })
			took := time.Since(answered)
			t.Logf("no after %s: needs_confirmation ended %s after the answer returned (acked by %s in %d ms, activity then %s)",
				delay, took, r.AckedBy, r.LatencyMS, r.Activity)
			// The bound tells "the answer ended it" from issue 22's
			// failures (a hold of 10–20 s), no more: it includes `sup
			// state` starting under load. A whole run measured 2.7 s here,
			// where sup's own log had the screen ready 1.5 s after the
			// answer was written and before `sup answer` returned. The 1 s
			// goal is TestClaudeAnswerFigures' and the bench's.
			if took > 5*time.Second {
				dumpSupLog(t, a)
				t.Fatalf("needs_confirmation lasted %s after the answer, want well under the 10 s of a hold", took)
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Fatalf("the declined command ran: %v", err)
			}
			waitReady(t, a, ready)
			// The trigger's turn takes 2 s, as a real model's takes
			// seconds: without a submit hook (Codex) the ack is the screen
			// turning busy, and an instant fake turn drew working and done
			// in one frame (run 66: ACK_TIMEOUT with the reply on screen;
			// specs/triggers.md step 8, the known gap).
			a.Model.Queue(fakemodel.Turn{Text: "ok", Delay: 2 * time.Second})
			out, err := a.SupCmd("trigger", "--json", "--id", fmt.Sprintf("after-no-%d", i), a.Doc, "after the no")
			var res ipc.TriggerResult
			if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Result != ipc.OutcomeDelivered {
				dumpSupLog(t, a)
				t.Fatalf("the trigger after the no: %s %v, want delivered", out, err)
			}
			waitReady(t, a, ready)
		})
	}
}

// waitReady waits for the agent's idle input line and sup's ready: the
// turn a trigger or an answer started has ended.
func waitReady(t *testing.T, a *Agent, ready string) {
	t.Helper()
	testutil.WaitUntil(t, 30*time.Second, "ready", func() bool { return a.State().Activity == "ready" })
	a.WaitScreen(ready)
}

// dumpSupLog logs the session's sup log: what decided each activity.
func dumpSupLog(t *testing.T, a *Agent) {
	logs, _ := filepath.Glob(filepath.Join(a.Env["XDG_STATE_HOME"], "sup", "*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		t.Logf("%s:\n%s", l, b)
	}
}
