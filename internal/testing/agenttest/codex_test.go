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

// startReadyCodex starts Codex under sup and waits until it takes input.
func startReadyCodex(t *testing.T, opts ...Option) *Agent {
	t.Helper()
	a := StartCodex(t, testutil.NewTmux(t), opts...)
	a.WaitCodexReady()
	return a
}

func TestCodexReachesPrompt(t *testing.T) {
	t.Parallel()
	a := startReadyCodex(t)
	screen := a.Screen()
	for _, want := range []string{"OpenAI Codex", a.Dir, CodexPrompt} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the ready screen lacks %q:\n%s", want, screen)
		}
	}
	// Starting costs no model call: Codex asks the model only when the
	// person submits something.
	if reqs := a.Model.Requests(); len(reqs) != 0 {
		t.Fatalf("Codex sent %d requests before any prompt, the first %s %s", len(reqs), reqs[0].Method, reqs[0].Path)
	}
	if st := a.State(); st.Profile != "codex" || st.Lifecycle != "running" {
		t.Fatalf("sup state: profile %q lifecycle %q, want codex running", st.Profile, st.Lifecycle)
	}
}

func TestCodexAnswersPrompt(t *testing.T) {
	t.Parallel()
	a := startReadyCodex(t)
	a.Type("what is up")
	// The stand-in's rule answers "ok: <prompt>".
	a.WaitScreen(CodexAnswerMark + "ok: what is up")
	r, ok := a.Model.WaitFor(time.Second, func(r fakemodel.Request) bool { return !r.Side })
	if !ok || r.API != "openai" || r.UserText != "what is up" {
		t.Fatalf("the model saw %+v, want the typed prompt", r)
	}
	// The input line is empty again: ready for the next prompt.
	a.WaitScreen(CodexPrompt)
}

func TestCodexApprovalRunsCommand(t *testing.T) {
	t.Parallel()
	a := startReadyCodex(t)
	file := filepath.Join(a.Dir, "approved.txt")
	a.Type("RUN: touch approved.txt")
	screen := a.WaitScreen(CodexApproval)
	for _, want := range []string{"$ touch approved.txt", "1. Yes, proceed (y)"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the approval prompt lacks %q:\n%s", want, screen)
		}
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	a.Keys("y")
	testutil.WaitUntil(t, ScreenTimeout, "the approved command to create "+file, func() bool {
		_, err := os.Stat(file)
		return err == nil
	})
	// The stand-in answers a tool result with "done: <its first line>".
	a.WaitScreen(CodexAnswerMark + "done: Process exited with code 0")
	r, ok := a.Model.WaitFor(time.Second, func(r fakemodel.Request) bool { return r.HasResult })
	if !ok || r.UserText != "RUN: touch approved.txt" {
		t.Fatalf("the model saw %+v, want the command's result", r)
	}
}

// TestMain removes the binaries this process built and, with
// SUP_AGENTS=latest, prints the version-drift table.
func TestMain(m *testing.M) {
	code := m.Run()
	PrintDriftTable(os.Stdout)
	testutil.RemoveBuilds()
	os.Exit(code)
}
