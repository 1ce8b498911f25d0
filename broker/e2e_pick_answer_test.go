//go:build linux

package broker_test

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testutil"
)

// startConfirm supervises fakeagent -confirm QUESTION for document NAME.md
// under the confirm profile; it returns its pane once the prompt is in the
// session's state.
func (f *fleet) startConfirm(name, question string) string {
	f.t.Helper()
	f.write("config/sup/profiles/confirm.yaml", testutil.ConfirmProfile)
	pane := f.tm.NewWindowDir(f.dir, f.env, f.bins.Sup, "start", "--profile", "confirm", f.write(name+".md", "# "+name+"\n"),
		"--", "fakeagent", "-raw", "-confirm", question)
	f.tm.WaitFor(f.t, pane, "fakeagent ready", 10*time.Second)
	testutil.WaitUntil(f.t, 10*time.Second, name+"'s prompt", func() bool { return f.session(name).State.PromptID != "" })
	return pane
}

// sup pick answers the selected session's prompt in place: its summary
// and options show under the preview, y answers it (with the prompt id
// shown), and the selection moves on to the next waiting session.
func TestE2EPickAnswers(t *testing.T) {
	f := newFleet(t, "")
	pa := f.startConfirm("alpha", "rm alpha")
	time.Sleep(5 * time.Millisecond)
	pb := f.startConfirm("beta", "rm beta")
	p := f.pick("> alpha")
	for _, want := range []string{"prompt: rm alpha", "1. Yes · 2. No", "answer: y yes · n no · 1-9 option"} {
		f.tm.WaitForScreen(t, p, want, 10*time.Second)
	}
	f.tm.SendKeys(p, "y")
	f.tm.WaitFor(t, pa, "answered: y", 10*time.Second)
	f.tm.WaitForScreen(t, p, "answered alpha: yes", 10*time.Second)
	f.tm.WaitForScreen(t, p, "> beta", 10*time.Second)
	f.tm.WaitForScreen(t, p, "prompt: rm beta", 10*time.Second)
	f.tm.SendKeys(p, "2")
	f.tm.WaitFor(t, pb, "answered: 2", 10*time.Second)
	f.tm.SendKeys(p, "q")
	testutil.WaitUntil(t, 10*time.Second, "pick to quit on q", func() bool { return f.tm.PaneDead(p) })
}
