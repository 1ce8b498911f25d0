//go:build linux

package broker_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
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
	t.Parallel()
	f := newFleet(t, "")
	pa := f.startConfirm("alpha", "rm alpha")
	time.Sleep(5 * time.Millisecond)
	pb := f.startConfirm("beta", "rm beta")
	p := f.pick("> alpha")
	for _, want := range []string{"prompt: rm alpha", "1. Yes · 2. No", "answer: y yes · n no · 1-2 option"} {
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

// The same in a real tmux popup on the human's attached client (as
// prefix+g opens it): the keys are typed into that client, y answers the
// prompt shown, q closes the popup.
func TestE2EPickAnswersInPopup(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	pa := f.startConfirm("alpha", "rm alpha")
	args := []string{"display-popup", "-c", f.client.TTY, "-w", "90%", "-h", "80%"}
	for k, v := range f.env {
		args = append(args, "-e", k+"="+v)
	}
	args = append(args, "-E", f.bins.Sup+" pick --client "+f.client.TTY)
	// display-popup returns when the popup closes: run it aside.
	popup := exec.Command("tmux", append([]string{"-L", f.tm.Name}, args...)...)
	if err := popup.Start(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- popup.Wait() }()
	t.Cleanup(func() {
		_ = popup.Process.Kill() // Best effort: normally closed by q.
		<-closed
	})
	testutil.WaitUntil(t, 10*time.Second, "the popup to show alpha's prompt", func() bool {
		return strings.Contains(f.client.Output(), "prompt: rm alpha")
	})
	f.client.Type(t, "y")
	f.tm.WaitFor(t, pa, "answered: y", 10*time.Second)
	testutil.WaitUntil(t, 10*time.Second, "the popup to say it answered", func() bool {
		return strings.Contains(f.client.Output(), "answered alpha: yes")
	})
	f.client.Type(t, "q")
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("display-popup: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the popup did not close on q")
	}
	closed <- nil // for the cleanup
}

// startDemo supervises sup's demo agent (the demo profile, as `sup demo`
// runs it) for document NAME.md, starting on task first; it returns its
// pane once the agent asks its confirmation.
func (f *fleet) startDemo(name, first string) string {
	f.t.Helper()
	doc := f.write(name+".md", "---\nsup:\n  profile: demo\n  command: ["+strconv.Quote(f.bins.Sup)+", demo-agent, --name, "+name+
		", --think, 300ms, --first, "+strconv.Quote(first)+"]\n---\n# "+name+"\n")
	pane := f.tm.NewWindowDir(f.dir, f.env, f.bins.Sup, "start", doc)
	testutil.WaitUntil(f.t, 15*time.Second, name+"'s confirmation", func() bool {
		s := f.sessions()
		for _, x := range s {
			if x.State.Name == name && x.State.PromptID != "" && x.State.Activity == "needs_confirmation" {
				return true
			}
		}
		return false
	})
	return pane
}

// The picker's keys do what its header says on the demo's agents: the
// prompt block lists y/n/a for the demo's confirmation, a allows the
// command for good, n declines it, and a digit, which this dialog does not
// take, is refused naming the choices it does.
func TestE2EPickAnswersDemo(t *testing.T) {
	t.Parallel()
	f := newFleet(t, "")
	pa := f.startDemo("alpha", "deploy alpha")
	time.Sleep(5 * time.Millisecond)
	pb := f.startDemo("beta", "push beta")
	p := f.pick("> alpha")
	f.tm.WaitForScreen(t, p, "sup queue · ↑↓ choose · enter jump · s skip · y/n/a/1-9 answer · q quit", 10*time.Second)
	f.tm.WaitForScreen(t, p, "answer: y yes · n no · a always", 10*time.Second)
	f.tm.SendKeys(p, "1")
	f.tm.WaitForScreen(t, p, "this dialog takes no option numbers; valid choices", 10*time.Second)
	f.tm.SendKeys(p, "a")
	f.tm.WaitFor(t, pa, "Allowed `make deploy` from now on", 10*time.Second)
	f.tm.WaitFor(t, pa, "Done: deploy alpha.", 10*time.Second)
	f.tm.WaitForScreen(t, p, "> beta", 10*time.Second)
	f.tm.SendKeys(p, "n")
	f.tm.WaitFor(t, pb, "OK, I did not run make push", 10*time.Second)
	f.tm.SendKeys(p, "q")
	testutil.WaitUntil(t, 10*time.Second, "pick to quit on q", func() bool { return f.tm.PaneDead(p) })
}
