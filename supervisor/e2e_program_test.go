//go:build linux

package supervisor_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// rawKeyPy draws a one-key dialog no rule reads and reports the key.
const rawKeyPy = `import os, sys, termios, tty
old = termios.tcgetattr(0)
tty.setraw(0)
sys.stdout.write("[P]ublish v9   [A]bort"); sys.stdout.flush()
k = os.read(0, 1)
termios.tcsetattr(0, termios.TCSAFLUSH, old)
print("\r\nchose " + k.decode(), flush=True)
`

// startBash supervises an interactive bash (the shell profile's login
// shell) with a plain prompt and waits for it to read plain idle.
func (r *rig) startBash(t *testing.T) string {
	t.Helper()
	pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--", "bash", "--norc", "--noprofile")
	testutil.WaitUntil(t, 10*time.Second, "the socket", func() bool { return len(r.sockets()) == 1 })
	r.tm.SendLiteral(pane, "PS1='bash$ '\r")
	r.tm.WaitFor(t, pane, "bash$", 5*time.Second)
	r.waitIdleShell(t)
	return pane
}

// waitIdleShell waits for the login shell at its prompt: plain idle, no
// summary, no prompt open.
func (r *rig) waitIdleShell(t *testing.T) {
	t.Helper()
	testutil.WaitUntil(t, 10*time.Second, "the login shell idle at its prompt", func() bool {
		st := r.state("doc")
		return st.Activity == "ready" && st.Reason == "idle" && st.Summary == "" && st.PromptID == ""
	})
}

// runInShell types a command line into the supervised shell and waits
// for the question it leads to.
func (r *rig) runInShell(t *testing.T, pane, line string) ipc.State {
	t.Helper()
	r.tm.SendLiteral(pane, line+"\r")
	var st ipc.State
	testutil.WaitUntil(t, 10*time.Second, line+": a prompt", func() bool {
		st = r.state("doc")
		return st.PromptID != ""
	})
	return st
}

// TestE2EProgramQuestions: in a supervised bash, every program's question
// is in the queue with its words and answerable with `sup answer` — rm -i,
// cp -i, Python's input(), git clean -i — a raw-key dialog no rule reads
// is ready with its line as summary, and the shell at its own prompt
// stays plain idle (specs/detection.md, "Prompts of any program").
func TestE2EProgramQuestions(t *testing.T) {
	t.Parallel()
	r := newRig(t, "activity: {quiet_window: 1s}\n")
	r.write("somefile", "")
	r.write("a.txt", "a\n")
	r.write("b.txt", "b\n")
	r.write("name.py", "n = input('What is your name? ')\nprint('hello ' + n)\n")
	r.write("key.py", rawKeyPy)
	pane := r.startBash(t)

	for _, c := range []struct {
		line, summary, choice, after string
		check                        func() bool
	}{
		{"rm -i somefile", "rm: remove regular empty file 'somefile'?", "yes", "",
			func() bool { _, err := os.Stat(filepath.Join(r.dir, "somefile")); return os.IsNotExist(err) }},
		{"cp -i a.txt b.txt", "cp: overwrite 'b.txt'?", "no", "",
			func() bool { b, _ := os.ReadFile(filepath.Join(r.dir, "b.txt")); return string(b) == "b\n" }},
		{"python3 name.py", "What is your name?", "Ada", "hello Ada", nil},
	} {
		st := r.runInShell(t, pane, c.line)
		if st.Activity != "needs_confirmation" || st.Summary != c.summary || st.WaitingSince == 0 || !strings.Contains(strings.Join(st.PromptChoices, ","), "text") {
			t.Fatalf("%s: %+v, want needs_confirmation %q, waiting, choices with text", c.line, st, c.summary)
		}
		if q := r.mustSup("queue"); !strings.Contains(q, c.summary) {
			t.Fatalf("%s: sup queue does not show the question:\n%s", c.line, q)
		}
		if _, err := r.sup("answer", "--expect", st.PromptID, "doc", c.choice); err != nil {
			t.Fatalf("%s: answer %s: %v", c.line, c.choice, err)
		}
		if c.after != "" {
			r.tm.WaitFor(t, pane, c.after, 5*time.Second)
		}
		r.waitIdleShell(t)
		if c.check != nil && !c.check() {
			t.Fatalf("%s: answered %s, but the program did not do it", c.line, c.choice)
		}
	}

	// A raw-key dialog no rule reads: ready, its line as summary.
	r.tm.SendLiteral(pane, "python3 key.py\r")
	testutil.WaitUntil(t, 10*time.Second, "the raw-key dialog read", func() bool {
		st := r.state("doc")
		return st.Activity == "ready" && st.Summary == "[P]ublish v9   [A]bort"
	})
	r.tm.SendKeys(pane, "a")
	r.tm.WaitFor(t, pane, "chose a", 5*time.Second)
	r.waitIdleShell(t)

	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed: CI must have it for git clean -i")
		}
		t.Log("git is not installed: git clean -i not tried")
		return
	}
	r.tm.SendLiteral(pane, "git init -q repo && cd repo && touch junk\r")
	r.waitIdleShell(t)
	st := r.runInShell(t, pane, "git clean -i")
	if st.Activity != "needs_confirmation" || st.Summary != "What now>" {
		t.Fatalf("git clean -i: %+v, want needs_confirmation %q", st, "What now>")
	}
	if _, err := r.sup("answer", "--expect", st.PromptID, "doc", "1"); err != nil {
		t.Fatalf("git clean -i: answer 1 (clean): %v", err)
	}
	r.tm.WaitFor(t, pane, "Removing junk", 5*time.Second)
	r.waitIdleShell(t)
}

// TestE2EProgramModelReader: with the model reader on, a program's screen
// no rule reads is sent to the model once quiet, its options become
// answer choices, and `sup answer` types the picked option's key; the
// login shell at its prompt is never sent.
func TestE2EProgramModelReader(t *testing.T) {
	t.Parallel()
	r, fm := newModelRig(t, "")
	r.write("config/sup/profiles/shell.yaml", "unknown_after: 500ms\n")
	r.write("key.py", rawKeyPy)
	fm.Queue(fakemodel.Turn{Text: `{"state":"NEEDS_CONFIRMATION","summary":"Publish v9 or abort?","actions_needed":[{"label":"Publish","key":"p"},{"label":"Abort","key":"a"}]}`})
	pane := r.startBash(t)
	time.Sleep(1500 * time.Millisecond) // three times unknown_after at the prompt
	if n := fm.Count("chat"); n != 0 {
		t.Fatalf("the login shell at its prompt was sent to the model %d times, want 0", n)
	}
	r.tm.SendLiteral(pane, "python3 key.py\r")
	var st ipc.State
	testutil.WaitUntil(t, 10*time.Second, "the model's reading", func() bool {
		st = r.state("doc")
		return st.Reason == "model"
	})
	if st.Activity != "needs_confirmation" || st.Summary != "Publish v9 or abort?" || strings.Join(st.PromptChoices, ",") != "1-2" ||
		len(st.PromptOptions) != 2 || st.PromptOptions[1].Label != "Abort" {
		t.Fatalf("after the reading: %+v", st)
	}
	if q := r.mustSup("queue"); !strings.Contains(q, "1. Publish [p]  2. Abort [a]") {
		t.Fatalf("sup queue does not show the model's options:\n%s", q)
	}
	if _, err := r.sup("answer", "--expect", st.PromptID, "doc", "2"); err != nil {
		t.Fatalf("answer 2: %v", err)
	}
	r.tm.WaitFor(t, pane, "chose a", 5*time.Second)
	r.waitIdleShell(t)
	time.Sleep(1500 * time.Millisecond)
	if n := fm.Count("chat"); n != 1 {
		t.Fatalf("model calls %d, want 1 (the dialog only)", n)
	}
}
