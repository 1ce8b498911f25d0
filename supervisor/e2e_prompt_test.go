//go:build linux

package supervisor_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EAnswerKeysBeforePrompt: keys the human typed before the prompt
// appeared are no answer in progress: the answer goes (specs/triggers.md,
// "Answers"); a key after it still refuses (TestE2EAnswer).
func TestE2EAnswerKeysBeforePrompt(t *testing.T) {
	t.Parallel()
	r := newRig(t, "activity: {quiet_window: 20s}\n")
	rec := filepath.Join(r.dir, "typed")
	pane, st := r.startConfirm("rm build", "-record", rec, "-reask", "1500ms")
	if _, err := r.answer(ipc.AnswerParams{Choice: "yes", Expect: st.PromptID}); err != nil {
		t.Fatalf("answer yes: %v", err)
	}
	r.tm.SendKeys(pane, "x") // typed between two prompts
	testutil.WaitUntil(t, 20*time.Second, "the key to reach sup", func() bool { return r.state("doc").OperatorBusy })
	st2 := r.waitPrompt(st.PromptID)
	if !st2.OperatorBusy {
		t.Fatalf("the quiet window ended before the prompt came back: %+v", st2)
	}
	if _, err := r.answer(ipc.AnswerParams{Choice: "2", Expect: st2.PromptID}); err != nil {
		t.Fatalf("answer with a key from before the prompt: %v, want answered", err)
	}
	if got := r.recorded(rec); got != "yx2" {
		t.Fatalf("typed %q, want yx2", got)
	}
}

// TestE2EAnswerHookPrompt: a prompt a hook reports before the dialog is
// drawn has its id from the first needs_confirmation on, unchanged when the
// screen catches up; an answer with it works, releases the hook's hold,
// and a quick "no" leaves needs_confirmation within a second.
func TestE2EAnswerHookPrompt(t *testing.T) {
	t.Parallel()
	r := newRig(t, "activity: {hook_hold: 10s}\n")
	pane, st := r.startConfirm("rm build", "-reask", "1500ms")
	if _, err := r.answer(ipc.AnswerParams{Choice: "yes", Expect: st.PromptID}); err != nil {
		t.Fatalf("answer yes: %v", err)
	}
	testutil.WaitUntil(t, 15*time.Second, "ready after the answer", func() bool { return r.state("doc").Activity == "ready" })
	r.hook(`{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm build"}}`, "--agent", "claude")
	first := r.state("doc")
	if first.Activity != "needs_confirmation" || first.PromptID == "" || first.Summary != "Bash: rm build" {
		t.Fatalf("after the hook: %+v, want needs_confirmation with a prompt id", first)
	}
	// The dialog is drawn again 1.5 s after the answer: the id holds.
	for deadline := time.Now().Add(2500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if st := r.state("doc"); st.PromptID != first.PromptID {
			t.Fatalf("the prompt id changed from %s to %s (%+v)", first.PromptID, st.PromptID, st)
		}
	}
	if e := r.explain(); e.Screen == nil || e.Screen.Activity != "needs_confirmation" {
		t.Fatalf("the screen does not show the dialog again: %+v", e.Screen)
	}
	// The end of needs_confirmation is read off the server's event: the
	// fake agent asks again 1.5 s after the answer, and polling the state
	// could miss the window between on a loaded machine (it did, twice).
	sub := r.subscribe(ipc.EventActivity)
	res, err := r.answer(ipc.AnswerParams{Choice: "no", Expect: first.PromptID})
	if err != nil {
		t.Fatalf("answer no with the first event's id: %v", err)
	}
	answered := time.Now()
	ended := activityUntil(t, sub, 20*time.Second, "needs_confirmation to end", func(a ipc.ActivityEvent) bool { return a.Activity != "needs_confirmation" })
	r.tm.WaitFor(t, pane, "answered: n", 5*time.Second)
	// The hold was 10 s: only the answer's release ends it this soon.
	if took := ended.Sub(answered); took > 6*time.Second {
		t.Fatalf("needs_confirmation ended %s after the answer (%+v), want well within the 10 s hold", took, res)
	}
}

// TestE2EAnswerChoicesFromDialog: a dialog that lists no numbered options
// takes no digit: prompt_choices says so, and `1` is refused naming the
// valid choices, nothing typed.
func TestE2EAnswerChoicesFromDialog(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	rec := filepath.Join(r.dir, "typed")
	_, st := r.startConfirm("rm build", "-options=false", "-record", rec)
	if !slices.Equal(st.PromptChoices, []string{"yes", "no"}) || len(st.PromptOptions) != 0 {
		t.Fatalf("choices %v options %v, want yes, no and no options", st.PromptChoices, st.PromptOptions)
	}
	_, err := r.answer(ipc.AnswerParams{Choice: "1", Expect: st.PromptID})
	if errCode(err) != ipc.CodeBadRequest || !strings.Contains(err.Error(), "shows no numbered options; valid choices: yes, no") {
		t.Fatalf("answer 1: %v, want BAD_REQUEST naming yes, no", err)
	}
	if got := r.recorded(rec); got != "" {
		t.Fatalf("a refused answer typed %q", got)
	}
}

// askPy asks one question of the kind its argument names on its terminal,
// prints the answer, then waits for a line.
const askPy = `import getpass, sys
q = {"yn": "Overwrite config.yaml? [y/N] ", "yesno": "Really delete (yes/no)? ",
     "enter": "Press ENTER to continue", "cont": "3 files changed. Continue? ", "pw": "Password: "}[sys.argv[1]]
a = getpass.getpass(q) if sys.argv[1] == "pw" else input(q)
print("got: " + repr(a), flush=True)
input("next> ")
`

// TestE2EAnswerAnyProgram: plain programs under the profile their name
// picks (shell) ask their questions as needs_confirmation with the
// question as summary, and `sup answer` answers them; a password prompt
// is shown but never answered.
func TestE2EAnswerAnyProgram(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	script := r.write("ask.py", askPy)
	for i, c := range []struct{ kind, summary, choice, got string }{
		{"yn", "Overwrite config.yaml? [y/N]", "yes", "got: 'y'"},
		{"yesno", "Really delete (yes/no)?", "no", "got: 'no'"},
		{"enter", "Press ENTER to continue", "yes", "got: ''"},
		{"cont", "3 files changed. Continue?", "yes", "got: 'y'"},
		{"pw", "Password:", "yes", ""},
	} {
		doc := r.write(c.kind+".md", "# "+c.kind+"\n")
		pane := r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", doc, "--", "python3", script, c.kind)
		testutil.WaitUntil(t, 10*time.Second, c.kind+": its socket", func() bool { return len(r.sockets()) == i+1 })
		var st ipc.State
		testutil.WaitUntil(t, 10*time.Second, c.kind+": a prompt", func() bool {
			st = r.state(c.kind)
			return st.PromptID != ""
		})
		if st.Profile != "shell" || st.Activity != "needs_confirmation" || st.Summary != c.summary || st.WaitingSince == 0 {
			t.Fatalf("%s: %+v, want profile shell, needs_confirmation %q, waiting", c.kind, st, c.summary)
		}
		out, err := r.sup("answer", "--expect", st.PromptID, c.kind, c.choice)
		if c.got == "" {
			var se *testutil.SupError
			if !errors.As(err, &se) || !strings.Contains(se.Stderr, "no answer keys") {
				t.Fatalf("%s: answer %s: %q %v, want refused: no answer keys", c.kind, c.choice, out, err)
			}
			if st := r.state(c.kind); st.Reason != "password" || st.Activity != "needs_confirmation" {
				t.Fatalf("%s: after the refusal: %+v", c.kind, st)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: answer %s: %v", c.kind, c.choice, err)
		}
		r.tm.WaitFor(t, pane, c.got, 5*time.Second)
		testutil.WaitUntil(t, 20*time.Second, c.kind+": ready at the next read", func() bool { return r.state(c.kind).Activity == "ready" })
	}
}

// TestE2EAnswerDialogGone: a program that reads one key and clears its
// screen: the answer is acknowledged (the screen no longer shows the
// dialog) and the session is ready within a second.
func TestE2EAnswerDialogGone(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	script := r.write("onekey.py", `import os, sys, termios, tty
old = termios.tcgetattr(0)
tty.setraw(0)
sys.stdout.write("Delete everything? [y/N] "); sys.stdout.flush()
os.read(0, 1)
sys.stdout.write("\x1b[2J\x1b[H"); sys.stdout.flush()
termios.tcsetattr(0, termios.TCSAFLUSH, old)
sys.stdin.readline()
`)
	r.tm.NewWindowDir(r.dir, r.env, r.bins.Sup, "start", filepath.Join(r.dir, "doc.md"), "--", "python3", script)
	testutil.WaitUntil(t, 10*time.Second, "the socket", func() bool { return len(r.sockets()) == 1 })
	st := r.waitPrompt("")
	// Ready is read off the server's event, stamped when it was
	// published: polling the state measured the poll too, seconds on a
	// loaded machine.
	sub := r.subscribe(ipc.EventActivity)
	res, err := r.answer(ipc.AnswerParams{Choice: "yes", Expect: st.PromptID})
	if err != nil || res.AckedBy == "" {
		t.Fatalf("answer: %+v %v, want acknowledged", res, err)
	}
	answered := time.Now()
	ready := activityUntil(t, sub, 10*time.Second, "ready", func(a ipc.ActivityEvent) bool { return a.Activity == "ready" })
	// Within a second on an idle machine (specs/detection.md); the bound
	// leaves room for a loaded one: before, it never left.
	if took := ready.Sub(answered); took > 6*time.Second {
		logs, _ := filepath.Glob(filepath.Join(r.dir, "*", "sup", "*.log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", l, b)
		}
		t.Fatalf("ready %s after the answer, want about a second", took)
	}
}

// TestE2ESilentChildReady: a headless child that never prints (cat, its
// stdin a pipe that stays open) reads ready once it waits on its terminal.
func TestE2ESilentChildReady(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	cmd := exec.Command(r.bins.Sup, "start", "--size", "80x24", filepath.Join(r.dir, "doc.md"), "--", "cat")
	cmd.Env, cmd.Dir, cmd.Stdout = r.environ(), r.dir, io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	// A socket that accepts: the file exists from bind, before the server
	// listens, and a dial then was refused on a loaded machine.
	testutil.WaitUntil(t, 10*time.Second, "the session's socket to accept", func() bool {
		socks := r.sockets()
		if len(socks) != 1 {
			return false
		}
		c, err := ipc.Dial(socks[0], time.Second)
		if err != nil {
			return false
		}
		c.Close()
		return true
	})
	up := time.Now()
	// When ready came is the server's stamp on its event (replayed from
	// the start): polling the state measured the poll too, seconds on a
	// loaded machine.
	c, err := ipc.Dial(r.sockets()[0], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sub, _, err := c.SubscribeSince(ctx, []string{ipc.EventActivity}, 0)
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	defer sub.Close()
	ready := activityUntil(t, sub, 10*time.Second, "cat to read ready", func(a ipc.ActivityEvent) bool { return a.Activity == "ready" })
	st := r.state("doc")
	if took := ready.Sub(up); took > 6*time.Second || st.Profile != "shell" {
		t.Fatalf("ready %s after the socket came up, profile %s; want within 6s under shell", took, st.Profile)
	}
}

// TestE2EErrorIsStuck: a turn ended by an API error (Claude's StopFailure
// hook) waits on the human: it enters the queue with its message.
func TestE2EErrorIsStuck(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	r.start("-echo")
	r.hook(`{"hook_event_name":"StopFailure","error":"invalid_request","error_details":"API Error: 400 prompt is too long"}`, "--agent", "claude")
	st := r.state("doc")
	if st.Activity != "error" || st.WaitingSince == 0 || st.Summary != "API Error: 400 prompt is too long" {
		t.Fatalf("after StopFailure: %+v, want error, waiting, the error as summary", st)
	}
	if out := r.mustSup("queue"); !strings.Contains(out, "doc") {
		t.Fatalf("sup queue does not list the failed session:\n%s", out)
	}
}
