//go:build linux

package main

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// bashCompletion is where Debian's bash-completion puts the helpers
// (_get_comp_words_by_ref, _comp_initialize) urfave/cli's script needs.
const bashCompletion = "/usr/share/bash-completion/bash_completion"

// TestCompletionBash: a real interactive bash in a tmux pane, with the
// script `sup completion bash` prints, completes the verb `tri` to
// `trigger` and the TARGET to the live sessions' names.
func TestCompletionBash(t *testing.T) {
	t.Parallel()
	testutil.Program(t, "bash", "apt-get install -y bash")
	testutil.File(t, bashCompletion, "apt-get install -y bash-completion")
	f := testutil.NewRig(t, "")
	f.Start("alpha", "-echo")
	f.Start("bravo", "-echo")

	env := maps.Clone(f.Env)
	env["PATH"] = filepath.Dir(f.Bins.Sup) + ":" + env["PATH"]
	env["PS1"] = "$ "
	env["INPUTRC"] = "/dev/null" // the human's readline settings must not change what TAB does
	sh := f.Tmux.NewWindowDir(f.Dir, env, "bash", "--norc", "--noprofile", "-i")
	f.Tmux.SendLiteral(sh, "source "+bashCompletion+"; source <(sup completion bash); echo loaded\n")
	f.Tmux.WaitFor(t, sh, "\nloaded", 10*time.Second)
	f.Tmux.SendKeys(sh, "C-l")

	f.Tmux.SendLiteral(sh, "sup tri")
	f.Tmux.SendKeys(sh, "Tab")
	f.Tmux.WaitFor(t, sh, "$ sup trigger ", 10*time.Second)

	// Two sessions: the first TAB finds no common prefix, the second lists
	// every candidate.
	f.Tmux.SendKeys(sh, "Tab", "Tab")
	screen := f.Tmux.WaitFor(t, sh, "bravo", 10*time.Second)
	if !strings.Contains(screen, "alpha") {
		t.Fatalf("sup trigger <TAB><TAB> does not list alpha:\n%s", screen)
	}
	f.Tmux.SendLiteral(sh, "br")
	f.Tmux.SendKeys(sh, "Tab")
	f.Tmux.WaitFor(t, sh, "$ sup trigger bravo ", 10*time.Second)
}
