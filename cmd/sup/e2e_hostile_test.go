//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestE2EHostileVerbs: the hostile corpus (internal/testing/testutil.Hostile), as
// a Stop hook's message, a PermissionRequest's command and a session's
// name, through every operator-facing verb, plain and --json: no raw
// control byte or bidi control reaches the terminal, the JSON reads back
// as what the agent said, and no #(…) runs (specs/security.md).
func TestE2EHostileVerbs(t *testing.T) {
	t.Parallel()
	f := testutil.NewRig(t, "")
	touch := filepath.Join(t.TempDir(), "pwned")
	name := "evil#(touch " + touch + ")#{pane_id}#[fg=red]"
	f.Write("evil.md", "---\nsup:\n  name: "+strconv.Quote(name)+"\n  workspace: \"ws#[bg=blue]\"\n---\n# evil\n")
	f.Start("evil", "-echo")
	sock := f.Socket(name)
	env := append(f.Environ(), "TMUX="+f.Tmux.SocketPath+","+strconv.Itoa(f.Tmux.ServerPID)+",0")
	// run runs each verb as its own sup, all at once (they only read; a
	// sup's start-up under -race is most of this test's time), and
	// returns their stdout and stderr in order.
	run := func(verbs [][]string) (outs, errOuts []string) {
		t.Helper()
		outs, errOuts = make([]string, len(verbs)), make([]string, len(verbs))
		errs := make([]error, len(verbs))
		var wg sync.WaitGroup
		for i, verb := range verbs {
			wg.Go(func() {
				out, err := f.Sup(env, verb...)
				var se *testutil.SupError
				if errors.As(err, &se) {
					outs[i], errOuts[i] = out, se.Stderr
				} else {
					outs[i], errs[i] = out, err
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("sup %s: %v", strings.Join(verbs[i], " "), err)
			}
		}
		return outs, errOuts
	}
	for _, h := range testutil.HostileFor(touch) {
		text := h.Text
		if h.Name == "bigline" {
			text = text[:900_000] // under the frame limit: the hook itself must get through
		}
		event := "Stop"
		p := ipc.HookParams{Agent: "claude", Event: "Stop", SessionID: "c1", Message: text}
		if h.Name == "tmuxrun" || h.Name == "osc52" || h.Name == "bidi" {
			event = "PermissionRequest"
			p = ipc.HookParams{Agent: "claude", Event: event, SessionID: "c1", ToolName: "Bash", Command: text}
		}
		ipctest.Call(t, sock, ipc.MethodHook, ipc.HookParams{Agent: "claude", Event: "UserPromptSubmit", SessionID: "c1", Prompt: "go"}, nil)
		ipctest.Call(t, sock, ipc.MethodHook, p, nil)
		st := ipctest.State(t, sock)
		if st.Summary == "" {
			t.Fatalf("%s: no summary after %s", h.Name, event)
		}
		plain := [][]string{
			{"ls"}, {"queue"}, {"state", name}, {"explain", name}, {"history", name}, {"status-line"},
			{"next", "--display"}, {"answer", name, "maybe"}, {"trigger", "--to", name + "x", "hi"},
		}
		asJSON := [][]string{{"ls", "--json"}, {"queue", "--json"}, {"state", "--json", name}}
		outs, errOuts := run(append(plain, asJSON...))
		for i, verb := range plain {
			out, errOut := outs[i], errOuts[i]
			if bad := testutil.RawControl(out + errOut); bad != "" {
				t.Errorf("%s: sup %s wrote a raw control near %q", h.Name, strings.Join(verb, " "), bad)
			}
			if len(out) > 64<<10 {
				t.Errorf("%s: sup %s wrote %d bytes: a field is capped", h.Name, strings.Join(verb, " "), len(out))
			}
		}
		for i, verb := range asJSON {
			out, errOut := outs[len(plain)+i], errOuts[len(plain)+i]
			if bad := testutil.RawControl(strings.ReplaceAll(out, "\n", "") + errOut); bad != "" {
				t.Errorf("%s: sup %s wrote a raw control near %q", h.Name, strings.Join(verb, " "), bad)
			}
			if !json.Valid([]byte(out)) {
				t.Errorf("%s: sup %s: invalid JSON", h.Name, strings.Join(verb, " "))
			}
			if verb[0] == "state" {
				var back ipc.State
				json.Unmarshal([]byte(out), &back)
				var want string // as encoding/json reads invalid UTF-8: U+FFFD a byte
				js, _ := json.Marshal(st.Summary)
				json.Unmarshal(js, &want)
				if back.Name != name || back.Summary != want {
					t.Errorf("%s: state --json read back name %q summary %.60q, want %q and %.60q", h.Name, back.Name, back.Summary, name, want)
				}
			}
		}
	}
	if _, err := os.Stat(touch); err == nil {
		t.Fatal("a #(touch) ran as the operator")
	}
}

// TestE2EHostileDashPick: sup dash and sup pick in real tmux panes draw a
// session whose summary holds OSC 52, OSC 0, a screen clear, C1 CSI and
// a bidi override: the screen shows them as escapes, the pane's title is
// not renamed, and no OSC 52 reaches the attached client's terminal.
func TestE2EHostileDashPick(t *testing.T) {
	t.Parallel()
	f := testutil.NewRig(t, "")
	client := f.Tmux.AttachClient(t)
	f.Start("evil", "-echo")
	sock := f.Socket("evil")
	// Short enough for pick's summary column (60): every part shows.
	msg := "\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07\x1b[2J\u009b2J\u202e"
	ipctest.Call(t, sock, ipc.MethodHook, ipc.HookParams{Agent: "claude", Event: "Stop", SessionID: "c1", Message: msg}, nil)
	for _, verb := range []string{"dash", "pick"} {
		pane := f.Tmux.NewWindowDir(f.Dir, f.Env, f.Bins.Sup, verb)
		if _, err := f.Tmux.Run("select-window", "-t", pane); err != nil {
			t.Fatal(err)
		}
		want := `\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07\x1b[2J\u009b2J\u202e`
		if verb == "dash" {
			want = want[:18] // dash's summary column is what the window's width leaves
		}
		f.Tmux.WaitFor(t, pane, want, 10*time.Second)
		if title, _ := f.Tmux.Run("display-message", "-p", "-t", pane, "#{pane_title}"); strings.Contains(title, "PWNED") {
			t.Errorf("%s: the agent renamed the pane: %q", verb, title)
		}
		f.Tmux.SendKeys(pane, "q")
	}
	if strings.Contains(client.Output(), "\x1b]52;c;cHduZWQ=") {
		t.Error("the agent's OSC 52 reached the operator's terminal")
	}
}
