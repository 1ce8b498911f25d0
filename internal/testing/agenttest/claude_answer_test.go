//go:build linux

package agenttest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// openClaudePrompt asks real Claude Code to run `touch NAME` and waits
// for its permission prompt, with the typed keys' quiet window over; it
// returns the prompt's id and the file the command would create.
func openClaudePrompt(t *testing.T, a *Agent, name string) (string, string) {
	t.Helper()
	return openPrompt(t, a, a.Type, ClaudePermission, name)
}

// openPrompt submits `RUN: touch NAME` with submit, waits for the
// agent's prompt (shown) and sup's prompt_id and options, and returns the
// id and the file the command would create. (A summary is not required:
// only the claude pack reads one from the screen.)
func openPrompt(t *testing.T, a *Agent, submit func(string), shown, name string) (string, string) {
	t.Helper()
	submit("RUN: touch " + name)
	a.WaitScreen(shown)
	a.WaitOperatorIdle()
	var st ipc.State
	testutil.WaitUntil(t, ScreenTimeout, "a prompt_id and options", func() bool {
		st = a.State()
		return st.PromptID != "" && len(st.PromptOptions) > 0
	})
	if st.Activity != "needs_confirmation" || st.Summary != "" && !strings.Contains(st.Summary, "touch "+name) || !slices.Contains(st.PromptChoices, "yes") {
		t.Fatalf("at the prompt: activity %s summary %q choices %q", st.Activity, st.Summary, st.PromptChoices)
	}
	return st.PromptID, filepath.Join(a.Dir, name)
}

// approveByAnswer answers the open prompt yes with its id and waits for
// the command to run.
func approveByAnswer(t *testing.T, a *Agent, id, file string) ipc.AnswerResult {
	t.Helper()
	r, code, err := answer(a, "--expect", id, a.Doc, "yes")
	if err != nil || r.PromptID != id || r.Choice != "yes" || r.AckedBy == "" {
		t.Fatalf("answer yes: %+v exit %d %v", r, code, err)
	}
	testutil.WaitUntil(t, 30*time.Second, "the approved command's file", func() bool { _, err := os.Stat(file); return err == nil })
	return r
}

// answer runs sup answer and returns its JSON result, or the exit status
// and stderr of a refusal.
func answer(a *Agent, args ...string) (ipc.AnswerResult, int, error) {
	out, err := a.SupCmd(append([]string{"answer", "--json"}, args...)...)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ipc.AnswerResult{}, ee.ExitCode(), err
	}
	if err != nil {
		return ipc.AnswerResult{}, -1, err
	}
	var r ipc.AnswerResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return r, -1, err
	}
	return r, 0, nil
}

// auditAnswers reads the answer lines of the sandbox's audit trail.
func auditAnswers(t *testing.T, a *Agent) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(a.Env["XDG_STATE_HOME"], "sup", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["kind"] == "answer" {
			out = append(out, m)
		}
	}
	return out
}

// TestClaudeAnswer: real Claude Code's permission prompts answered by sup
// answer, without attaching: yes runs the command, no does not; a stale
// --expect after the human answered in the pane is PROMPT_CHANGED and
// types nothing; an answer while the human types is OPERATOR_BUSY until
// forced. Every answer is one audit line.
func TestClaudeAnswer(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }),
		// 6 s: operator_busy's answer must come within the window of the
		// human's key, and under the whole suite's load a `sup answer`
		// took more than 2 s to start and dial (CI).
		WithSupConfig("activity: {quiet_window: 6s}\n"))
	a.WaitOperatorIdle()

	t.Run("yes", func(t *testing.T) {
		id, file := openClaudePrompt(t, a, "yes.txt")
		if r := approveByAnswer(t, a, id, file); !strings.Contains(r.Summary, "touch yes.txt") {
			t.Fatalf("answered summary %q", r.Summary)
		}
		a.WaitScreen(ClaudeReady)
	})

	t.Run("stale", func(t *testing.T) {
		id, file := openClaudePrompt(t, a, "human.txt")
		a.PressUntilGone(ClaudePermission, "Enter") // the human answers in the pane
		testutil.WaitUntil(t, 30*time.Second, "the human's approval to run", func() bool { _, err := os.Stat(file); return err == nil })
		a.WaitScreen(ClaudeReady)
		a.WaitOperatorIdle()
		before := a.Screen()
		_, code, err := answer(a, "--expect", id, a.Doc, "yes")
		if code != 3 || err == nil || !strings.Contains(err.Error(), "PROMPT_CHANGED") {
			t.Fatalf("a stale answer: exit %d %v, want 3 PROMPT_CHANGED", code, err)
		}
		time.Sleep(500 * time.Millisecond)
		if st := a.State(); st.Draft != "" || a.Screen() != before {
			t.Fatalf("the refused answer typed something: draft %q\n%s", st.Draft, a.Screen())
		}
	})

	t.Run("operator_busy", func(t *testing.T) {
		id, file := openClaudePrompt(t, a, "busy.txt")
		a.Keys("Down") // the human is at the dialog, after it appeared
		// The gate counts only keys after the prompt appeared (issue 22):
		// wait for this one to reach sup.
		testutil.WaitUntil(t, ScreenTimeout, "the key to reach sup", func() bool { return a.State().OperatorBusy })
		_, code, err := answer(a, "--expect", id, a.Doc, "yes")
		if code != 3 || err == nil || !strings.Contains(err.Error(), "OPERATOR_BUSY") {
			t.Fatalf("an answer while the human types: exit %d %v, want 3 OPERATOR_BUSY", code, err)
		}
		if !strings.Contains(a.Screen(), ClaudePermission) {
			t.Fatal("the refused answer answered the prompt")
		}
		a.Keys("Down")
		r, code, err := answer(a, "--expect", id, "--force", "--override-reason", "human_override: test", a.Doc, "1")
		if err != nil {
			t.Fatalf("a forced answer: %+v exit %d %v", r, code, err)
		}
		testutil.WaitUntil(t, 30*time.Second, "the forced approval to run", func() bool { _, err := os.Stat(file); return err == nil })
		a.WaitScreen(ClaudeReady)
	})

	// Last: after a decline, Claude Code sends the rejection with the next
	// prompt, which the model stand-in answers instead of running a tool.
	t.Run("no", func(t *testing.T) {
		id, file := openClaudePrompt(t, a, "no.txt")
		r, code, err := answer(a, "--expect", id, a.Doc, "no")
		if err != nil || r.PromptID != id {
			t.Fatalf("answer no: %+v exit %d %v", r, code, err)
		}
		a.WaitScreen(ClaudeReady)
		time.Sleep(time.Second)
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Fatalf("the declined command ran: %v", err)
		}
	})

	lines := auditAnswers(t, a)
	var got []string
	for _, l := range lines {
		got = append(got, l["outcome"].(string)+":"+l["choice"].(string)+":"+l["error_code"].(string))
	}
	want := []string{"answered:yes:", "refused:yes:PROMPT_CHANGED", "refused:yes:OPERATOR_BUSY", "answered:1:", "answered:no:"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("audit answers %q, want %q", got, want)
	}
	if last := lines[len(lines)-2]; last["collision_gate"] != "bypassed" || last["force_override_applied"] != true || !strings.Contains(last["summary"].(string), "touch busy.txt") {
		t.Fatalf("the forced answer's audit line: %v", last)
	}
}

// TestCodexAnswer: real Codex's approval answered yes by sup answer (its
// screen alone tells the prompt: no hooks); the command runs.
func TestCodexAnswer(t *testing.T) {
	t.Parallel()
	a := startReadyCodex(t, WithSupConfig("activity: {quiet_window: 2s}\n"))
	id, file := openPrompt(t, a, a.Type, CodexApproval, "codex-yes.txt")
	approveByAnswer(t, a, id, file)
	a.WaitScreen(CodexPrompt)
}

// waitSignal waits until the session's explain lists a signal of rule (such as
// "hook:Notification": the hook arrived) and returns that explain.
func (a *Agent) waitSignal(rule string) ipc.ExplainResult {
	a.T.Helper()
	var e ipc.ExplainResult
	testutil.WaitUntil(a.T, 30*time.Second, "the signal "+rule+" in sup explain", func() bool {
		e = ipc.ExplainResult{} // asked in process, as State is
		ipctest.Call(a.T, a.Socket(), ipc.MethodExplain, nil, &e)
		for _, s := range e.Signals {
			if s.Rule == rule {
				return true
			}
		}
		return false
	})
	return e
}

// TestClaudeNotificationKeepsCommand: with hooks, real Claude Code's
// permission prompt shows `Bash: touch …` as its summary (from
// PermissionRequest); the Notification hook that follows ~5 s later says
// only "Claude needs your permission…" and must not replace it — sup
// explain shows it arrived and that PermissionRequest still decides.
func TestClaudeNotificationKeepsCommand(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }))
	a.Type("RUN: touch notified.txt")
	a.WaitScreen(ClaudePermission)
	id := ""
	testutil.WaitUntil(t, ScreenTimeout, "the PermissionRequest summary", func() bool {
		st := a.State()
		id = st.PromptID
		return st.Summary == "Bash: touch notified.txt" && id != ""
	})
	e := a.waitSignal("hook:Notification")
	st := a.State()
	if st.Summary != "Bash: touch notified.txt" || st.PromptID != id || e.Rule != "hook:PermissionRequest" {
		t.Fatalf("after the Notification: summary %q prompt %s (was %s), decided by %s", st.Summary, st.PromptID, id, e.Rule)
	}
	out, err := a.SupCmd("queue", "--json")
	if err != nil || !strings.Contains(out, `"summary": "Bash: touch notified.txt"`) {
		t.Fatalf("sup queue --json: %v\n%s", err, out)
	}
}
