package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/fakemodel"
	"github.com/sup-tmux/sup/internal/testutil"
)

// startReadyGemini starts Gemini CLI under sup in a tmux server of the
// test's own and waits until it has initialised at its empty prompt.
func startReadyGemini(t *testing.T, opts ...Option) *Agent {
	t.Helper()
	a := StartGemini(t, testutil.NewTmux(t), opts...)
	a.WaitGeminiReady()
	return a
}

func TestGeminiAnswersPrompt(t *testing.T) {
	t.Parallel()
	a := startReadyGemini(t)
	screen := a.Screen()
	for _, want := range []string{"Gemini CLI v", GeminiModel, "? for shortcuts"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the ready screen lacks %q:\n%s", want, screen)
		}
	}
	a.Type("what is up")
	a.WaitScreen(GeminiAnswerMark + "ok: what is up")
	a.WaitScreen(GeminiPrompt)
	r, ok := a.Model.WaitFor(time.Second, func(r fakemodel.Request) bool { return !r.Side })
	if !ok || r.API != "gemini" || r.UserText != "what is up" || r.HasResult || !strings.Contains(r.Path, GeminiModel+":streamGenerateContent") {
		t.Fatalf("the model saw %+v, want the typed prompt", r)
	}
}

func TestGeminiConfirmationApprovedRunsCommand(t *testing.T) {
	t.Parallel()
	a := startReadyGemini(t)
	file := filepath.Join(a.Dir, "approved.txt")
	a.Type("RUN: touch approved.txt")
	screen := a.WaitScreen(GeminiConfirm)
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
	a.PressUntilGone(GeminiConfirm, "Enter")
	a.WaitScreen(GeminiAnswerMark + "done: Output: (empty)")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	a.WaitScreen(GeminiPrompt)
}
