//go:build linux

package agenttest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// firstRunAnswer gets past one first-run screen: the first answer whose
// text is on the screen sends keys until that text is gone.
type firstRunAnswer struct {
	name string   // what the screen is, for the log and the table
	text string   // on the screen while it shows
	keys []string // tmux key names that answer it
	// choose, if set, is the selected option's line to move to with Down
	// before the keys (a dialog whose default would end the agent).
	choose string
	// done, if set, shows once the keys landed; else text leaving the
	// screen does (Gemini CLI draws on the normal screen: its dialog
	// stays above the restarted CLI).
	done string
	// answer is the `sup answer` choice that gets past it, for a walk
	// that answers with sup alone (firstRun.viaAnswer).
	answer string
}

// firstRun is one agent's way from a new user's first start to its prompt.
type firstRun struct {
	agent  string
	start  func(t testing.TB, tm *testutil.Tmux, opts ...Option) *Agent
	prompt string // on the screen at the empty prompt
	// relaunching, when set, says the agent is restarting itself: the
	// screen is on the way to the prompt (Gemini: GeminiRelaunching).
	relaunching func(screen string) bool
	answers     []firstRunAnswer
	// ask puts a prompt to the agent at its prompt and waits for the
	// answer: the first run ended where it should.
	ask func(t *testing.T, a *Agent)
	// viaAnswer: every screen is answered with `sup answer` alone, never
	// a key in the pane, and must show a summary and list the choice.
	viaAnswer bool
}

// fallbackWindow is how long a first-run screen may read unknown: the
// profiles' unknown_after (3s), plus the supervisor's look (≤ 50 ms) and
// a loaded machine's slack: 3 s, since under -race with the whole suite
// on two cores a sample of `sup state` can itself lag by a second (1.5 s
// was exceeded by 0.1 s there). A screen that hides the agent stays
// unknown for good, which this still catches.
const fallbackWindow = 3*time.Second + 3*time.Second

// firstRunSample is how often the walk samples `sup state --json`.
const firstRunSample = 100 * time.Millisecond

// walkFirstRun samples the session's state while the agent starts for
// the first time, answers each first-run screen once the session reports
// it as needs_confirmation, and returns the screens met in order. It
// fails if the session reads ready anywhere but at the prompt, unknown
// for longer than fallbackWindow, or needs_confirmation on a screen no
// answer knows (the screen is in the message: add an answer).
func walkFirstRun(t *testing.T, a *Agent, fr firstRun) []firstRunAnswer {
	t.Helper()
	var met []firstRunAnswer
	var unknownSince, answeredAt, strangeSince time.Time
	var answered, last ipc.State // the state the last answer was given on; the last sample's
	deadline := time.Now().Add(3 * ScreenTimeout)
	for ; ; time.Sleep(firstRunSample) {
		if time.Now().After(deadline) {
			t.Fatalf("no prompt after %v; met %v; screen:\n%s", 3*ScreenTimeout, names(met), a.Screen())
		}
		st, err := a.stateNow()
		if err != nil {
			continue // sup not listening yet
		}
		screen := a.Screen()
		if !answeredAt.IsZero() && time.Since(answeredAt) < ScreenTimeout && sameWord(st, answered) {
			// The answered screen's word still stands while the next
			// screen is looked at (an unmatched screen keeps it until the
			// fallback, after unknown_after, replaces it), and while the
			// agent leaves the dialog on screen: Gemini CLI restarts after
			// the trust answer with the dialog still drawn, for seconds on
			// a loaded machine (CI).
			continue
		}
		if st.Activity != "unknown" {
			unknownSince = time.Time{}
		}
		if st.Activity != "needs_confirmation" {
			strangeSince = time.Time{}
		}
		switch st.Activity {
		case "ready":
			if a.readyHolds(fr, met) {
				return met
			}
			t.Logf("%s: ready (reason %q) for a moment: on the way", fr.agent, st.Reason)
		case "unknown":
			if strings.TrimSpace(screen) == "" {
				// Nothing drawn yet (the agent still starting: Gemini CLI
				// takes seconds on a loaded machine): there is nothing to
				// recognise, so nothing the fallback should call a question.
				unknownSince = time.Time{}
				continue
			}
			if unknownSince.IsZero() {
				unknownSince = time.Now()
			} else if d := time.Since(unknownSince); d > fallbackWindow {
				t.Fatalf("unknown for %v, longer than the fallback window %v; met %v:\n%s", d.Round(time.Millisecond), fallbackWindow, names(met), screen)
			}
		case "needs_confirmation":
			ans, ok := findAnswer(fr.answers, screen)
			if !ok {
				screen = a.paneCatchUp(func(s string) bool { _, ok := findAnswer(fr.answers, s); return ok })
				ans, ok = findAnswer(fr.answers, screen)
			}
			if !ok {
				// sup can trail the pane too: a dialog answered (a key
				// retried under load took the next one as well) leaves
				// its word standing until sup reads the screen again.
				// Only a word that stays on a screen no answer knows is
				// an unknown first-run screen.
				if strangeSince.IsZero() {
					strangeSince = time.Now()
				}
				if time.Since(strangeSince) < strangeWindow {
					continue
				}
				t.Fatalf("needs_confirmation (reason %q, summary %q) for %v on a first-run screen no answer knows; add one:\n%s", st.Reason, st.Summary, strangeWindow, screen)
			}
			strangeSince = time.Time{}
			t.Logf("%s %s: %s — needs_confirmation, reason %s, summary %q; answering %v", fr.agent, AgentVersion(t, fr.agent), ans.name, st.Reason, st.Summary, ans.keys)
			met = append(met, ans)
			if fr.viaAnswer {
				answerWithSup(t, a, st, ans)
			} else if ans.choose != "" {
				chooseAndAnswer(t, a, ans)
			} else if ans.done != "" {
				a.PressUntil(ans.done, ans.keys...)
			} else {
				a.PressUntilGone(ans.text, ans.keys...)
			}
			answered, answeredAt = st, time.Now()
		default:
			if !sameWord(st, last) {
				t.Logf("%s: %s (reason %q) on the way", fr.agent, st.Activity, st.Reason)
			}
		}
		last = st
	}
}

// readyHolds reports whether a ready reading stands at the prompt for
// readyHold. Gemini CLI 0.61 draws its prompt for a moment before its
// trust dialog (at start, while it checks the folder) and again between
// the trust answer and its restart; under load that moment outlasts
// ready_debounce and sup rightly reads it ready: the walk goes on when
// the reading changes. It fails while the session reads ready and the
// pane does not show the prompt for longer than paneLag.
func (a *Agent) readyHolds(fr firstRun, met []firstRunAnswer) bool {
	t := a.T
	t.Helper()
	var missingSince time.Time
	for end := time.Now().Add(readyHold); time.Now().Before(end); time.Sleep(firstRunSample) {
		st, err := a.stateNow()
		if err != nil {
			t.Fatalf("sup state: %v", err)
		}
		if st.Activity != "ready" {
			return false
		}
		screen := a.Screen()
		switch {
		case strings.Contains(screen, fr.prompt) || fr.relaunching != nil && fr.relaunching(screen):
			missingSince = time.Time{}
		case missingSince.IsZero():
			missingSince = time.Now()
		case time.Since(missingSince) > paneLag:
			t.Fatalf("ready (reason %q) on a screen that is not the prompt (%q) for %v; met %v:\n%s", st.Reason, fr.prompt, paneLag, names(met), screen)
		}
	}
	return missingSince.IsZero()
}

// readyHold is how long a ready reading must stand to end the walk.
const readyHold = 3 * time.Second

// paneCatchUp is the pane's screen once ok holds of it, or after
// paneLag. sup reads the child's output before tmux does (sup writes it
// to the pane, and the tmux server parses it when its loop gets there):
// under load a state sampled after the agent redrew can be ahead of a
// capture taken just after it (CI: ready at Gemini CLI's restarted
// prompt, the pane still showing the trust dialog above "restarting").
func (a *Agent) paneCatchUp(ok func(string) bool) string {
	screen := a.Screen()
	for end := time.Now().Add(paneLag); !ok(screen) && time.Now().Before(end); screen = a.Screen() {
		time.Sleep(50 * time.Millisecond)
	}
	return screen
}

// paneLag bounds how far tmux's copy of a pane may trail sup's.
const paneLag = 3 * time.Second

// strangeWindow is how long walkFirstRun lets needs_confirmation stand
// on a screen no answer knows before it fails: past paneLag (the pane
// trailing sup) and sup's own look at a changed screen (its 1 s quiet
// debounce, seconds under load).
const strangeWindow = 8 * time.Second

// chooseAndAnswer moves the selection to ans.choose with Down, then
// sends ans.keys once the selection has stayed there for a moment, until
// the dialog is gone. Claude Code's trust dialog may redraw with its
// default ("No, exit") selected again just after it appears, and an Enter
// then ends Claude Code (sup restarts it, and the dialog comes back).
func chooseAndAnswer(t *testing.T, a *Agent, ans firstRunAnswer) {
	t.Helper()
	deadline := time.Now().Add(ScreenTimeout)
	for strings.Contains(a.Screen(), ans.text) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: could not choose %q:\n%s", ans.name, ans.choose, a.Screen())
		}
		a.PressUntil(ans.choose, "Down")
		time.Sleep(500 * time.Millisecond)
		if !strings.Contains(a.Screen(), ans.choose) {
			continue
		}
		a.Keys(ans.keys...)
		// Pressed again only if the dialog is still there after 10 s: a
		// second Enter sent while a slow agent is still closing it lands
		// in what comes next — in TestClaudeUnseenDialogHoldsTrigger the
		// deferred trigger sup had just pasted, so sup rightly withheld
		// its own Enter (a human key came between) and the trigger was
		// never counted delivered (a loaded CI run; 2 s before).
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && strings.Contains(a.Screen(), ans.text); {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// answerWithSup answers a first-run screen as a user who never attaches
// would: from the queue's summary and `sup answer`. The screen must have
// a summary and list the choice in prompt_choices (one truth about
// choices), and the answer must take the screen away.
func answerWithSup(t *testing.T, a *Agent, st ipc.State, ans firstRunAnswer) {
	t.Helper()
	if st.Summary == "" || st.PromptID == "" || !slices.Contains(st.PromptChoices, ans.answer) {
		t.Fatalf("%s: summary %q, prompt %q, choices %v: want a summary and %q among the choices", ans.name, st.Summary, st.PromptID, st.PromptChoices, ans.answer)
	}
	deadline := time.Now().Add(ScreenTimeout)
	for strings.Contains(a.Screen(), ans.text) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still on screen after sup answer %s:\n%s", ans.name, ans.answer, a.Screen())
		}
		cur, err := a.stateNow()
		if err != nil || cur.PromptID == "" {
			time.Sleep(firstRunSample)
			continue
		}
		out, err := a.SupCmd("answer", "--expect", cur.PromptID, a.Doc, ans.answer)
		if err != nil && ans.done != "" && strings.Contains(err.Error(), "ACK_TIMEOUT") && strings.Contains(a.Screen(), ans.done) {
			// Gemini CLI restarts after its trust answer with the dialog
			// still drawn on the normal screen: under load the dialog
			// outlasts the answer's acknowledgement (8 s), though the
			// answer was taken (its done text shows).
			t.Logf("%s: sup answer %s: %v; taken (%q shows)", ans.name, ans.answer, err, ans.done)
			return
		}
		if err != nil {
			t.Fatalf("%s: sup answer %s: %v", ans.name, ans.answer, err)
		}
		t.Logf("%s: sup answer %s: %s", ans.name, ans.answer, strings.TrimSpace(out))
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end) && strings.Contains(a.Screen(), ans.text); {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// sameWord reports whether two states say the same about the session.
func sameWord(a, b ipc.State) bool {
	return a.Activity == b.Activity && a.Reason == b.Reason && a.Summary == b.Summary
}

func findAnswer(answers []firstRunAnswer, screen string) (firstRunAnswer, bool) {
	for _, ans := range answers {
		if strings.Contains(screen, ans.text) {
			return ans, true
		}
	}
	return firstRunAnswer{}, false
}

func names(met []firstRunAnswer) []string {
	out := make([]string, len(met))
	for i, m := range met {
		out[i] = m.name
	}
	return out
}

// stateNow is State without failing the test: sup may not listen yet.
// Asked over the socket in the test process, as State is: the first-run
// tests sample it every 100 ms for tens of seconds.
func (a *Agent) stateNow() (ipc.State, error) {
	var st ipc.State
	socks, err := filepath.Glob(filepath.Join(a.Env["SUP_RUNTIME_DIR"], "*.sock"))
	if err != nil || len(socks) != 1 {
		return st, fmt.Errorf("the session's socket: %v %v", socks, err)
	}
	return st, ipctest.TryCall(socks[0], ipc.MethodState, nil, &st)
}

var claudeFirstRun = firstRun{
	agent:  "claude",
	start:  StartClaude,
	prompt: "❯\u00a0", // the input box; the first start's footer is auto mode's
	ask: func(t *testing.T, a *Agent) {
		a.Type("what is up")
		a.WaitScreen(ClaudeAnswerMark + "ok: what is up")
	},
	answers: []firstRunAnswer{
		{"theme", "Choose the text style", []string{"Enter"}, "", "", "enter"},
		{"security notes", "Press Enter to continue", []string{"Enter"}, "", "", "yes"},
		{"trust", ClaudeTrust, []string{"Enter"}, "❯ Yes, I trust this folder", "", "yes"},
	},
}

var codexFirstRun = firstRun{
	agent:  "codex",
	start:  StartCodex,
	prompt: CodexPrompt,
	ask: func(t *testing.T, a *Agent) {
		a.WaitCodexReady()
		a.Type("what is up")
		a.WaitScreen(CodexAnswerMark + "ok: what is up")
	},
	answers: []firstRunAnswer{
		{"trust", CodexTrust, []string{"Enter"}, "", "", "enter"},
	},
}

var geminiFirstRun = firstRun{
	agent:       "gemini",
	start:       StartGemini,
	prompt:      GeminiPrompt,
	relaunching: GeminiRelaunching,
	ask: func(t *testing.T, a *Agent) {
		a.WaitGeminiReady()
		submitGemini(t, a, "what is up")
		a.WaitScreen(GeminiAnswerMark + "ok: what is up")
	},
	answers: []firstRunAnswer{
		{"trust", GeminiTrust, []string{"Enter"}, "", "Gemini CLI is restarting to apply the trust changes", "enter"},
	},
}

// testFirstRun starts the agent as a new user would (only the API key
// approved), walks its first-run screens under real `sup start` in a
// real tmux pane, and checks the agent then answers a prompt.
func testFirstRun(t *testing.T, fr firstRun) {
	t.Parallel()
	a := fr.start(t, testutil.NewTmux(t), WithFirstRun())
	met := walkFirstRun(t, a, fr)
	t.Logf("%s %s: first-run screens: %v", fr.agent, AgentVersion(t, fr.agent), names(met))
	fr.ask(t, a)
}

func TestClaudeFirstRun(t *testing.T) { testFirstRun(t, claudeFirstRun) }

// claudeRenderers are Claude Code's two renderers: fullscreen (its
// default under tmux, on the alternate screen) and classic.
var claudeRenderers = []struct {
	name string
	opts []Option
}{
	{"fullscreen", nil},
	{"classic", []Option{WithEnv("CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN", "1")}},
}

// TestClaudeFirstRunAnswered: a new user walks Claude Code's whole first
// run with `sup answer` alone, each screen in the queue with a summary
// and its choice listed — in both renderers (fullscreen, Claude Code's
// default under tmux, and classic).
func TestClaudeFirstRunAnswered(t *testing.T) {
	t.Parallel()
	for _, r := range claudeRenderers {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			fr := answered(claudeFirstRun)
			a := fr.start(t, testutil.NewTmux(t), append(r.opts, WithFirstRun())...)
			met := walkFirstRun(t, a, fr)
			t.Logf("claude %s (%s): first run answered with sup answer: %v", AgentVersion(t, "claude"), r.name, names(met))
			fr.ask(t, a)
		})
	}
}
func TestCodexFirstRun(t *testing.T)  { testFirstRun(t, codexFirstRun) }
func TestGeminiFirstRun(t *testing.T) { testFirstRun(t, geminiFirstRun) }

// TestCodexFirstRunAnswered, TestGeminiFirstRunAnswered: their first-run
// trust screens, answered with `sup answer` alone.
func TestCodexFirstRunAnswered(t *testing.T)  { testFirstRun(t, answered(codexFirstRun)) }
func TestGeminiFirstRunAnswered(t *testing.T) { testFirstRun(t, answered(geminiFirstRun)) }

func answered(fr firstRun) firstRun { fr.viaAnswer = true; return fr }
