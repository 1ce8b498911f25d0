//go:build linux

package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// startReadyGemini starts Gemini CLI under sup in a tmux server of the
// test's own and waits until it has initialised at its empty prompt.
func startReadyGemini(t *testing.T, opts ...Option) *Agent {
	t.Helper()
	a := StartGemini(t, testutil.NewTmux(t), opts...)
	a.WaitGeminiReady()
	return a
}

// TestGeminiWithoutHooks: one real Gemini CLI without hooks, through a
// plain turn, a tool confirmation approved in the pane and one answered
// by `sup answer`. The screen (and
// its title) alone takes it to needs_confirmation at the confirmation and
// to ready after the turn; the delays from the screen showing each to the
// supervisor publishing it are logged (goals: ≤ 500 ms and ≤ 2 s; ready
// waits out the 1 s quiet debounce by design); a draft typed into its box
// is seen; a confirmation is answered by `sup answer`. One agent for what
// were four tests: a Gemini CLI start is ~12 s of CPU on the suite's
// 2 cores, the dearest of the three agents (issue 29). The quiet window is
// 2 s so that the answer waits less for the typed request's keys.
func TestGeminiWithoutHooks(t *testing.T) {
	t.Parallel()
	a := startReadyGemini(t, WithSupConfig("activity: {quiet_window: 2s}\n"))
	screen := a.Screen()
	// Not the banner ("Gemini CLI v…"): on a loaded machine Gemini CLI
	// may clear its screen after initialising and redraw only the input
	// area (see WaitGeminiReady).
	for _, want := range []string{GeminiModel, "? for shortcuts"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the ready screen lacks %q:\n%s", want, screen)
		}
	}
	submitGemini(t, a, "what is up")
	a.WaitScreen(GeminiAnswerMark + "ok: what is up")
	a.WaitScreen(GeminiPrompt)
	r, ok := a.Model.WaitFor(time.Second, func(r fakemodel.Request) bool { return !r.Side })
	if !ok || r.API != "gemini" || r.UserText != "what is up" || r.HasResult || !strings.Contains(r.Path, GeminiModel+":streamGenerateContent") {
		t.Fatalf("the model saw %+v, want the typed prompt", r)
	}

	next := a.WatchActivity()
	file := filepath.Join(a.Dir, "approved.txt")
	submitGemini(t, a, "RUN: touch approved.txt")
	shown := a.WaitScreenAt(GeminiConfirm)
	// The dialog is drawn over several frames: wait for its last line.
	screen = a.WaitScreen("No, suggest changes (esc)")
	for _, want := range []string{"? Shell  touch approved.txt", "● 1. Allow once", "No, suggest changes (esc)"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the confirmation lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, GeminiPrompt) {
		t.Fatalf("the input box shows beside the confirmation:\n%s", screen)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the command ran before it was approved: %v", err)
	}
	ev := next("needs_confirmation")
	if rule, _ := ev.Data["rule"].(string); !strings.HasPrefix(rule, "screen:") {
		t.Fatalf("needs_confirmation came from %q, want a screen rule (no hooks installed)", rule)
	}
	t.Logf("confirmation on screen → needs_confirmation published by %v: %v", ev.Data["rule"], time.UnixMilli(ev.At).Sub(shown).Round(time.Millisecond))
	if st := a.State(); st.Reason != "permission" || st.Draft != "" {
		t.Fatalf("at the confirmation: reason %q draft %q", st.Reason, st.Draft)
	}
	a.PressUntilGone(GeminiConfirm, "Enter")
	done := a.WaitScreenAt(GeminiAnswerMark + "done: Output: (empty)")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	ev = next("ready")
	t.Logf("answer on screen → ready published: %v", time.UnixMilli(ev.At).Sub(done).Round(time.Millisecond))
	if st := a.State(); st.Activity != "ready" || st.WaitingSince == 0 {
		t.Fatalf("after the turn: %+v", st)
	}
	a.WaitScreen(GeminiPrompt)

	// A third turn's confirmation answered yes by `sup answer`, its screen
	// alone telling the prompt: the command runs.
	id, yes := openPrompt(t, a, func(text string) { submitGemini(t, a, text) }, GeminiConfirm, "gemini-yes.txt")
	approveByAnswer(t, a, id, yes)
	next("ready")
	a.WaitScreen(GeminiPrompt)

	// A draft typed into the box is seen, and makes the operator busy.
	a.Tmux.SendLiteral(a.Pane, "half a thought")
	testutil.WaitUntil(t, ScreenTimeout, "the draft in state", func() bool {
		st := a.State()
		return st.Draft == "half a thought" && st.OperatorBusy
	})
}
