//go:build linux

package agenttest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// staleQuestion is what the model stand-in is scripted to end a turn with.
const staleQuestion = "Should I delete the 3 stale branches?"

// TestClaudeAsked (issue 24): real Claude Code ends a turn with a question
// (the stand-in's answer): the session is ready, reason asked, the
// question in `sup queue`; a trigger without --answering is held with
// AGENT_ASKED and never reaches the model; after the human types "no" in
// the pane the trigger goes as its own turn; with --answering it goes at
// once.
func TestClaudeAsked(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }),
		WithSupConfig(askedConfig))
	checkAsked(t, a)
}

// TestCodexAsked is TestClaudeAsked with real Codex, whose turn ends
// reach sup through notify and its Stop hook.
func TestCodexAsked(t *testing.T) {
	t.Parallel()
	a := StartCodex(t, testutil.NewTmux(t), WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "codex", "--user") }),
		WithSupConfig(askedConfig))
	// A new hooks.json must be trusted once: "2. Trust all and continue".
	a.WaitScreen("Hooks need review")
	a.PressUntilGone("Hooks need review", "2", "Enter")
	a.WaitCodexReady()
	checkAsked(t, a)
}

const askedConfig = "activity: {quiet_window: 1s}\ntrigger: {recheck: 200ms, ack_timeout: 20s}\n"

// checkAsked runs issue 24's conversation on a ready agent with sup's
// hooks installed.
func checkAsked(t *testing.T, a *Agent) {
	t.Helper()
	a.Type("SAY I found 3 stale branches: old-ui, tmp-fix and wip. " + staleQuestion)
	testutil.WaitUntil(t, 60*time.Second, "reason asked", func() bool { return a.State().Reason == "asked" })
	if st := a.State(); st.Activity != "ready" || st.Summary != staleQuestion || st.WaitingSince == 0 {
		t.Fatalf("after the question: %+v", st)
	}
	out, err := a.SupCmd("queue")
	if err != nil || !strings.Contains(out, "asked") || !strings.Contains(out, staleQuestion) {
		t.Fatalf("sup queue: %v\n%s", err, out)
	}

	a.WaitOperatorIdle()
	out, err = a.SupCmd("trigger", "--json", "--no-wait", "--id", "asked-1", "--thread", "th_01", a.Doc,
		"Read unread messages for thread th_01 and continue")
	if err != nil {
		t.Fatal(err)
	}
	var res ipc.TriggerResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Result != ipc.OutcomeDeferred || res.ErrorCode != ipc.CodeAgentAsked ||
		!strings.Contains(res.Message, staleQuestion) {
		t.Fatalf("trigger after the question: %s (%v), want deferred AGENT_ASKED with the question", out, err)
	}
	held := func(r fakemodel.Request) bool { return strings.Contains(r.UserText, "BRIDGE_TRIGGER id=asked-1") }
	if _, ok := a.Model.WaitFor(3*time.Second, held); ok {
		t.Fatal("the held trigger reached the model")
	}
	if scr := a.Screen(); strings.Contains(scr, "BRIDGE_TRIGGER") {
		t.Fatalf("the held trigger was typed:\n%s", scr)
	}

	// The human answers in the pane; the trigger follows as its own turn.
	a.Type("no")
	if _, ok := a.Model.WaitFor(60*time.Second, func(r fakemodel.Request) bool { return r.UserText == "no" }); !ok {
		t.Fatal("the model never got the human's answer")
	}
	got, ok := a.Model.WaitFor(90*time.Second, held)
	if !ok {
		t.Fatal("the held trigger never went after the human answered")
	}
	if strings.Contains(got.UserText, "no\n") || strings.HasPrefix(strings.TrimSpace(got.UserText), "no") {
		t.Fatalf("the trigger went with the human's answer, not as its own turn: %q", got.UserText)
	}
	testutil.WaitUntil(t, 60*time.Second, "the held trigger delivered", func() bool { return a.State().Triggers["delivered"] == 1 })

	// Asked again: --answering goes at once.
	testutil.WaitUntil(t, 60*time.Second, "the trigger's turn over", func() bool { return a.State().Activity == "ready" })
	a.Type("SAY " + staleQuestion)
	testutil.WaitUntil(t, 60*time.Second, "reason asked again", func() bool { return a.State().Reason == "asked" })
	a.WaitOperatorIdle()
	out, err = a.SupCmd("trigger", "--json", "--answering", "--id", "asked-2", a.Doc, "yes, delete them")
	res = ipc.TriggerResult{}
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Result != ipc.OutcomeDelivered {
		t.Fatalf("trigger --answering: %v\n%s", err, out)
	}
	if _, ok := a.Model.WaitFor(30*time.Second, func(r fakemodel.Request) bool {
		return strings.Contains(r.UserText, "BRIDGE_TRIGGER id=asked-2") && strings.Contains(r.UserText, "yes, delete them")
	}); !ok {
		t.Fatal("the model never got the answering trigger")
	}
}

// TestClaudeAskedAnswer: real Claude Code asked a question; `sup answer
// NAME TEXT` (not the pane) answers it: the text reaches the model as the
// user's next turn, alone, acked when the turn starts; the trigger held
// with AGENT_ASKED goes afterwards as its own turn.
func TestClaudeAskedAnswer(t *testing.T) {
	t.Parallel()
	a := startReadyClaude(t, WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "claude", "--user") }),
		WithSupConfig(askedConfig))
	checkAskedAnswer(t, a)
}

// TestCodexAskedAnswer is TestClaudeAskedAnswer with real Codex.
func TestCodexAskedAnswer(t *testing.T) {
	t.Parallel()
	a := StartCodex(t, testutil.NewTmux(t), WithBeforeStart(func(a *Agent) { a.InstallHooks(a.Sup, "codex", "--user") }),
		WithSupConfig(askedConfig))
	a.WaitScreen("Hooks need review")
	a.PressUntilGone("Hooks need review", "2", "Enter")
	a.WaitCodexReady()
	checkAskedAnswer(t, a)
}

// checkAskedAnswer: the agent asks; `sup answer` answers with text; the
// held trigger follows.
func checkAskedAnswer(t *testing.T, a *Agent) {
	t.Helper()
	a.Type("SAY I found 3 stale branches: old-ui, tmp-fix and wip. " + staleQuestion)
	testutil.WaitUntil(t, 60*time.Second, "reason asked", func() bool { return a.State().Reason == "asked" })
	st := a.State()
	if st.PromptID == "" || strings.Join(st.PromptChoices, ",") != "text" {
		t.Fatalf("asked: %+v, want a prompt taking text", st)
	}
	a.WaitOperatorIdle()
	if _, err := a.SupCmd("trigger", "--no-wait", "--id", "asked-1", "--thread", "th_01", a.Doc,
		"Read unread messages for thread th_01 and continue"); err != nil {
		t.Fatal(err)
	}
	out, err := a.SupCmd("answer", "--json", "--expect", st.PromptID, a.Doc, "no, keep them")
	var res ipc.AnswerResult
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.PromptID != st.PromptID || res.Dialog != "asked" || res.AckedBy == "" {
		t.Fatalf("sup answer: %v\n%s", err, out)
	}
	if _, ok := a.Model.WaitFor(60*time.Second, func(r fakemodel.Request) bool { return r.UserText == "no, keep them" }); !ok {
		t.Fatal("the model never got the answer as its own turn")
	}
	held := func(r fakemodel.Request) bool { return strings.Contains(r.UserText, "BRIDGE_TRIGGER id=asked-1") }
	got, ok := a.Model.WaitFor(90*time.Second, held)
	if !ok {
		t.Fatal("the held trigger never went after the answer")
	}
	if strings.Contains(got.UserText, "keep them") {
		t.Fatalf("the trigger went with the answer, not as its own turn: %q", got.UserText)
	}
}
