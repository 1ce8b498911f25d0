//go:build linux

package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// RecordCorpusEnv, set to 1, makes TestRecordCorpus record the screen
// corpus again.
const RecordCorpusEnv = "SUP_RECORD_CORPUS"

// corpusMoment is how to record one corpus entry: start the agent with
// opts (the recorder's added), drive it to the moment, stop.
type corpusMoment struct {
	entry CorpusEntry // File, Agent, Renderer, Cols, Rows left zero take defaults
	opts  []Option
	// drive brings the started agent to the moment and waits until its
	// screen shows it.
	drive func(t *testing.T, a *Agent)
}

// Texts of the corpus's scripted prompts and answers.
const (
	corpusDraft    = "refactor the retry loop in fetch.go"
	corpusQuestion = "Would you like to proceed?\n1. Yes\n2. No"
)

// classicClaude picks Claude Code's classic renderer through the "tui"
// setting ("default"; "fullscreen" is the other valid value).
var classicClaude = WithClaudeSettings(map[string]any{"tui": "default"})

// corpusMoments lists every recording of testdata/corpus, in index order.
func corpusMoments() []corpusMoment {
	claude, codex, gemini := corpusMomentOf(CorpusClaude), corpusMomentOf(CorpusCodex), corpusMomentOf(CorpusGemini)
	classic := func(m corpusMoment) corpusMoment {
		m.entry.Renderer = "classic"
		m.opts = append(m.opts, classicClaude)
		return m
	}
	small := func(m corpusMoment) corpusMoment {
		m.entry.Cols, m.entry.Rows = 80, 24
		m.opts = append(m.opts, WithSize(80, 24))
		return m
	}
	draft := func(m corpusMoment, text string) corpusMoment {
		m.entry.Draft = text
		return m
	}

	return []corpusMoment{
		// Claude Code, fullscreen renderer.
		claude("fresh_ready", ActivityReady, "? for shortcuts",
			"Started, at its empty prompt; the first start's footer adds '← for agents'.",
			claudeReady),
		claude("busy_waiting", ActivityBusy, "esc to interrupt",
			"HANG: the request is out, no token yet; spinner line without counts.",
			func(t *testing.T, a *Agent) { claudeReady(t, a); claudeHang(t, a) }),
		claude("busy_streaming", ActivityBusy, "streaming slowly: word1",
			"SLOW 20, 4 s in: the answer streams in; spinner line with elapsed time and token count, footer 'esc to interrupt'.",
			func(t *testing.T, a *Agent) {
				claudeReady(t, a)
				a.Type("SLOW 20")
				// A few seconds in, so the title's spinner (◐/◑) has started.
				a.WaitScreen(" word40 ")
				a.WaitScreen(ClaudeBusy)
			}),
		claude("ready_after_turn", ActivityReady, "ok: what is up",
			"One prompt answered ('ok: what is up'), the turn's '✻ Crunched for 0s' line (random verb), empty prompt.",
			answerTurn(CorpusClaude)),
		claude("permission_prompt", ActivityNeedsConfirmation, ClaudePermission,
			"RUN: touch approved.txt: the Bash permission prompt, '❯ 1. Yes' preselected; the input box is gone.",
			claudePermission),
		claude("write_prompt", ActivityNeedsConfirmation, "Do you want to create notes.txt?",
			"WRITE: <dir>/notes.txt hello: the Write tool's permission prompt ('Create file', the path, the new content between '╌' rules).",
			claudeWrite),
		small(claude("permission_prompt_80x24", ActivityNeedsConfirmation, ClaudePermission,
			"The Bash permission prompt in an 80x24 pane: long options wrap, the banner has scrolled away.",
			claudePermission)),
		claude("ready_after_approval", ActivityReady, "done: (Bash completed with no output)",
			"The permission prompt approved with Enter: 'Ran 1 shell command', the model's answer, empty prompt.",
			func(t *testing.T, a *Agent) {
				claudePermission(t, a)
				a.PressUntilGone(ClaudePermission, "Enter")
				a.WaitScreen(ClaudeAnswerMark + "done: ")
				a.WaitScreen(ClaudeReady)
			}),
		claude("question_prose", ActivityReady, "2. No",
			"The model's answer is prose that reads like a prompt ('Would you like to proceed?' / '1. Yes' / '2. No'); Claude is idle at its prompt.",
			answerProse(CorpusClaude)),
		draft(claude("draft", ActivityReady, corpusDraft,
			"Text typed into the input box, not sent ('❯' U+00A0 then the draft); the footer loses '? for shortcuts'.",
			func(t *testing.T, a *Agent) {
				claudeReady(t, a)
				a.Tmux.SendLiteral(a.Pane, corpusDraft)
				a.WaitScreen("❯\u00a0" + corpusDraft)
				waitScreenGone(t, a, "? for shortcuts")
			}), corpusDraft),
		draft(claude("interrupted_draft", ActivityReady, "❯\u00a0HANG",
			"HANG, then Escape before any answer: the turn vanishes from the transcript and its prompt is back in the input box as a draft; nothing says 'interrupted'.",
			func(t *testing.T, a *Agent) {
				claudeReady(t, a)
				claudeHang(t, a)
				a.EscapeUntilGone(ClaudeBusy)
				a.WaitScreen("❯\u00a0HANG")
			}), "HANG"),
		claude("trust_dialog", ActivityNeedsConfirmation, "Yes, I trust this folder",
			"Started in an untrusted folder: the trust dialog, 'No, exit' preselected.",
			func(t *testing.T, a *Agent) { a.WaitScreen(ClaudeTrust) }, WithoutTrust()),
		claude("api_key_dialog", ActivityNeedsConfirmation, ClaudeKeyDialog,
			"ANTHROPIC_API_KEY not yet approved: 'Detected a custom API key in your environment', 'No (recommended)' preselected.",
			func(t *testing.T, a *Agent) { a.WaitScreen(ClaudeKeyDialog) }, WithClaudeUnapprovedKey()),
		claude("settings_error_dialog", ActivityNeedsConfirmation, "Continue without these settings",
			"settings.json holds an invalid value (tui: classic): the Settings Error dialog, '❯ 1. Fix with Claude' preselected.",
			func(t *testing.T, a *Agent) {
				a.WaitScreen("Settings Error")
				a.WaitScreen("Continue without these settings")
			},
			WithClaudeSettings(map[string]any{"tui": "classic"})),
		// A new user's first start (WithFirstRun: only the API key
		// approved), and the auto-mode offer; recorded with the newest
		// Claude Code (SUP_AGENTS=latest), whose first-run screens
		// TestClaudeFirstRun walks on the pin too.
		claude("first_run_theme", ActivityNeedsConfirmation, "Choose the text style",
			"First start, only the API key approved: the onboarding's theme picker, '❯ ✔ Auto (match terminal)' preselected, the others aligned with its text; no input box, no footer.",
			func(t *testing.T, a *Agent) { a.WaitScreen("Light mode (ANSI colors only)") }, WithFirstRun()),
		claude("first_run_security_notes", ActivityNeedsConfirmation, "Press Enter to continue",
			"First start, the theme picked with Enter: the onboarding's 'Security notes:' (a numbered list, no selection) and 'Press Enter to continue'.",
			func(t *testing.T, a *Agent) {
				a.WaitScreen("Light mode (ANSI colors only)")
				a.PressUntilGone("Choose the text style", "Enter")
				a.WaitScreen("Press Enter to continue")
			}, WithFirstRun()),
		claude("auto_mode_dialog", ActivityNeedsConfirmation, "Make auto mode your default permission mode?",
			"Onboarding done, the auto-mode offer not yet seen: 'Make auto mode your default permission mode?', '❯ Yes, set auto mode…' / 'No, keep manual mode', no input box and no footer (it comes ~20 s later).",
			func(t *testing.T, a *Agent) { a.WaitScreen("No, keep manual mode") }, WithClaudeAutoModeOffer()),
		claude("api_retrying_503", ActivityError, "retrying in",
			"FAIL 503: every attempt gets a 503; '✻ API error · retrying in Ns · attempt 2/10' (later attempts show the status and message), footer still 'esc to interrupt'.",
			func(t *testing.T, a *Agent) {
				claudeReady(t, a)
				a.Type("FAIL 503")
				a.WaitScreen("attempt 2/10")
			}),
		claude("api_unreachable", ActivityError, "ECONNREFUSED",
			"The model's port closed after start: 'Connection refused … (ECONNREFUSED) · retrying in Ns · attempt n/10'.",
			func(t *testing.T, a *Agent) {
				claudeReady(t, a)
				a.Model.Close()
				a.Type("hello")
				a.WaitScreen("attempt 2/10")
			}),
		claude("api_error_final", ActivityError, "There's an issue with the selected model",
			"FAIL 404, not retried: the error as the turn's answer, and the placeholder '❯ Once fixed, resend your message' (not a draft) in the input box.",
			func(t *testing.T, a *Agent) {
				claudeReady(t, a)
				a.Type("FAIL 404")
				a.WaitScreen("There's an issue with the selected model")
				a.WaitScreen(ClaudeReady)
			}),

		// Claude Code, classic renderer: the normal screen, with scrollback.
		classic(claude("classic_fresh_ready", ActivityReady, "? for shortcuts",
			"Classic renderer (setting tui: default), started, at its empty prompt; the effort badge shares the footer line.",
			claudeReady)),
		classic(claude("classic_busy_streaming", ActivityBusy, "streaming slowly: word1",
			"Classic renderer, SLOW 20, 4 s in: the answer streams in under the spinner line.",
			func(t *testing.T, a *Agent) {
				claudeReady(t, a)
				a.Type("SLOW 20")
				a.WaitScreen(" word40 ")
				a.WaitScreen(ClaudeBusy)
			})),
		classic(claude("classic_permission_prompt", ActivityNeedsConfirmation, ClaudePermission,
			"Classic renderer, RUN: touch approved.txt: '● Bash(touch approved.txt)' / '⎿  Waiting…' above the permission prompt.",
			claudePermission)),
		classic(claude("classic_write_prompt", ActivityNeedsConfirmation, "Do you want to create notes.txt?",
			"Classic renderer, WRITE: <dir>/notes.txt hello: the Write tool's permission prompt.",
			claudeWrite)),
		classic(claude("classic_ready_after_approval", ActivityReady, "done: (Bash completed with no output)",
			"Classic renderer, the permission prompt approved: the command's result, the answer, empty prompt.",
			func(t *testing.T, a *Agent) {
				claudePermission(t, a)
				a.PressUntilGone(ClaudePermission, "Enter")
				a.WaitScreen(ClaudeAnswerMark + "done: ")
				a.WaitScreen(ClaudeReady)
			})),

		// Codex.
		codex("fresh_ready", ActivityReady, CodexPrompt,
			"Started and loaded, at its empty prompt ('› Ask Codex to do anything'); '⚠ 1 warning' about the unknown model.",
			codexReady),
		codex("busy_waiting", ActivityBusy, "esc to interrupt",
			"HANG: the request is out, no token yet: '• Working (Ns • esc to interrupt)' above the input line.",
			func(t *testing.T, a *Agent) { codexReady(t, a); codexHang(t, a) }),
		codex("busy_streaming", ActivityBusy, "streaming slowly: word1",
			"SLOW 20: the answer streams in; the 'Working' line is gone, so the screen shows no busy sign but the growing text (OSC 7501 state=working says it).",
			func(t *testing.T, a *Agent) {
				codexReady(t, a)
				a.Type("SLOW 20")
				a.WaitScreen("streaming slowly: word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 ")
			}),
		codex("ready_after_turn", ActivityReady, "ok: what is up",
			"One prompt answered ('• ok: what is up', 'Worked for …'), empty prompt.",
			answerTurn(CorpusCodex)),
		codex("approval_prompt", ActivityNeedsConfirmation, CodexApproval,
			"RUN: touch approved.txt: the approval prompt, '› 1. Yes, proceed (y)' preselected.",
			codexApproval),
		small(codex("approval_prompt_80x24", ActivityNeedsConfirmation, CodexApproval,
			"The approval prompt in an 80x24 pane.",
			codexApproval)),
		codex("ready_after_approval", ActivityReady, "done: Process exited with code 0",
			"The approval prompt answered with y: '✔ You approved codex to run …', '• Ran …', the answer, empty prompt.",
			func(t *testing.T, a *Agent) {
				codexApproval(t, a)
				a.Keys("y")
				a.WaitScreen(CodexAnswerMark + "done: Process exited with code 0")
				a.WaitScreen(CodexPrompt)
			}),
		codex("question_prose", ActivityReady, "2. No",
			"The model's answer is prose that reads like a prompt ('Would you like to proceed?' / '1. Yes' / '2. No'); Codex is idle at its prompt.",
			answerProse(CorpusCodex)),
		draft(codex("draft", ActivityReady, corpusDraft,
			"Text typed into the input line, not sent ('› ' then the draft, replacing the placeholder).",
			func(t *testing.T, a *Agent) {
				codexReady(t, a)
				a.Tmux.SendLiteral(a.Pane, corpusDraft)
				a.WaitScreen("› " + corpusDraft)
			}), corpusDraft),
		codex("interrupted", ActivityReady, "Conversation interrupted",
			"HANG, then Escape: '■ Conversation interrupted - use /feedback …', back at the prompt.",
			func(t *testing.T, a *Agent) {
				codexReady(t, a)
				codexHang(t, a)
				a.Keys("Escape")
				a.WaitScreen("Conversation interrupted")
			}),
		codex("trust_screen", ActivityNeedsConfirmation, CodexTrust,
			"Started in an untrusted git repository: 'Trust this folder?', '› 1. Trust and continue' preselected.",
			func(t *testing.T, a *Agent) { a.WaitScreen(CodexTrust) },
			WithoutTrust(), WithBeforeStart(gitInit)),
		// Recorded with Codex 0.171.0 (SUP_AGENTS=latest): its review of
		// new hooks at the start after `sup hooks install codex`, and
		// its /hooks list (a dialog: no composer, a table of hooks).
		codex("hooks_review", ActivityNeedsConfirmation, "Hooks need review",
			"Started with sup's hooks newly installed: 'Hooks need review', '1. Review hooks' / '2. Trust all and continue' / '3. Continue without trusting'.",
			func(t *testing.T, a *Agent) { a.WaitScreen("Trust all and continue") },
			WithBeforeStart(codexHooks)),
		codex("hooks_list", ActivityNeedsConfirmation, "Lifecycle hooks from config",
			"The hooks trusted, '/hooks' typed at the prompt: Codex's list of lifecycle hooks replaces the composer.",
			func(t *testing.T, a *Agent) {
				a.WaitScreen("Trust all and continue")
				a.PressUntilGone("Hooks need review", "2", "Enter")
				codexReady(t, a)
				a.Type("/hooks")
				waitScreenGone(t, a, CodexPrompt)
				a.WaitScreen("enter details · esc close")
			},
			WithBeforeStart(codexHooks)),
		codex("api_retrying_503", ActivityError, "Reconnecting... 1/5",
			"FAIL 503 with Codex's default retries: '• Reconnecting... 1/5 (Ns • esc to interrupt)' / '└ Unexpected status 503 …'.",
			func(t *testing.T, a *Agent) {
				codexReady(t, a)
				a.Type("FAIL 503")
				a.WaitScreen("Reconnecting... 1/5")
				a.WaitScreen("Unexpected status 503")
			},
			WithBeforeStart(codexDefaultRetries)),
		codex("api_unreachable", ActivityError, "Reconnecting... waiting for network",
			"The model's port closed after start: '• Reconnecting... waiting for network (Ns • esc to interrupt)' / '└ Connection failed …'.",
			func(t *testing.T, a *Agent) {
				codexReady(t, a)
				a.Model.Close()
				a.Type("hello")
				a.WaitScreen("Reconnecting... waiting for network")
				a.WaitScreen("Connection failed")
			}),
		codex("api_error_final", ActivityError, "unexpected status 503",
			"FAIL 503 without retries (the sandbox's request/stream_max_retries = 0): '■ unexpected status 503 …', back at the prompt.",
			func(t *testing.T, a *Agent) {
				codexReady(t, a)
				a.Type("FAIL 503")
				a.WaitScreen("unexpected status 503")
				a.WaitScreen(CodexPrompt)
			}),

		// Gemini CLI.
		gemini("fresh_ready", ActivityReady, GeminiPrompt,
			"Started and initialised, at its empty input box ('>   Type your message or @path/to/file'); title '◇  Ready (project)'.",
			geminiReady),
		gemini("busy_waiting", ActivityBusy, GeminiBusy,
			"HANG: the request is out, no answer yet; spinner line '⠏ <phrase> (esc to cancel, Ns)' above the input box; title '✦  Working… (project)'.",
			func(t *testing.T, a *Agent) { geminiReady(t, a); geminiHang(t, a) }),
		gemini("busy_streaming", ActivityBusy, "streaming slowly: word1",
			"SLOW 20, some seconds in: the answer streams in above the spinner line.",
			func(t *testing.T, a *Agent) {
				geminiReady(t, a)
				submitGemini(t, a, "SLOW 20")
				a.WaitScreen(" word40 ")
				a.WaitScreen(GeminiBusy)
			}),
		gemini("ready_after_turn", ActivityReady, "ok: what is up",
			"One prompt answered ('✦ ok: what is up'), empty input box; the prompt stays in the transcript as ' > what is up'.",
			answerTurn(CorpusGemini)),
		gemini("confirmation", ActivityNeedsConfirmation, GeminiConfirm,
			"RUN: touch approved.txt: the boxed '? Shell  touch approved.txt' / 'Allow execution of [Shell]?' / '● 1. Allow once' … '3. No, suggest changes (esc)' in place of the input box; title '✋  Action Required (project)'.",
			geminiConfirm),
		small(gemini("confirmation_80x24", ActivityNeedsConfirmation, GeminiConfirm,
			"The same confirmation in an 80x24 pane.",
			geminiConfirm)),
		gemini("ready_after_approval", ActivityReady, "done: Output: (empty)",
			"The confirmation approved with Enter: '✓  Shell touch approved.txt', the answer, empty input box.",
			func(t *testing.T, a *Agent) {
				geminiConfirm(t, a)
				a.PressUntilGone(GeminiConfirm, "Enter")
				a.WaitScreen(GeminiAnswerMark + "done: Output: (empty)")
				a.WaitScreen(GeminiPrompt)
			}),
		gemini("question_prose", ActivityReady, "2. No",
			"The model's answer is prose that reads like a prompt ('Would you like to proceed?' / '1. Yes' / '2. No'); Gemini CLI is idle at its input box.",
			answerProse(CorpusGemini)),
		draft(gemini("draft", ActivityReady, corpusDraft,
			"Text typed into the input box, not sent (' > ' then the draft, replacing the placeholder); earlier prompts in the transcript look the same.",
			func(t *testing.T, a *Agent) {
				geminiReady(t, a)
				submitGemini(t, a, "what is up")
				a.WaitScreen(GeminiAnswerMark + "ok: what is up")
				a.WaitScreen(GeminiPrompt)
				a.Tmux.SendLiteral(a.Pane, corpusDraft)
				a.WaitScreen("> " + corpusDraft)
			}), corpusDraft),
		gemini("interrupted", ActivityReady, "Request cancelled.",
			"HANG, then Escape: 'ℹ Request cancelled.', back at the empty input box.",
			func(t *testing.T, a *Agent) {
				geminiReady(t, a)
				geminiHang(t, a)
				a.Keys("Escape")
				a.WaitScreen("Request cancelled.")
				a.WaitScreen(GeminiPrompt)
			}),
		gemini("trust_dialog", ActivityNeedsConfirmation, GeminiTrust,
			"An untrusted project (no trustedFolders.json entry): the folder trust dialog before the input box.",
			func(t *testing.T, a *Agent) { a.WaitScreen(GeminiTrust) },
			WithoutTrust()),
		gemini("first_run_trust", ActivityNeedsConfirmation, GeminiTrust,
			"First start, only the API key chosen (WithFirstRun): the true-colour warning, then the folder trust dialog, '● 1. Trust folder (project)' preselected.",
			func(t *testing.T, a *Agent) { a.WaitScreen("3. Don't trust") }, WithFirstRun()),
		gemini("api_error_final", ActivityError, "[API Error:",
			"FAIL 400 (not retried): '✕ [API Error: …]' under the prompt, back at the empty input box.",
			func(t *testing.T, a *Agent) {
				geminiReady(t, a)
				submitGemini(t, a, "FAIL 400")
				a.WaitScreen("[API Error:")
				a.WaitScreen(GeminiPrompt)
			}),
	}
}

// corpusMomentOf returns the constructor of agent's moments: its file
// under agent/, and the renderer its screens use by default.
func corpusMomentOf(agent string) func(label, activity, marker, desc string, drive func(*testing.T, *Agent), opts ...Option) corpusMoment {
	return func(label, activity, marker, desc string, drive func(*testing.T, *Agent), opts ...Option) corpusMoment {
		return corpusMoment{entry: CorpusEntry{Agent: agent, Renderer: corpusFaces[agent].renderer, File: agent + "/" + label + ".raw",
			Activity: activity, Marker: marker, Description: desc}, opts: opts, drive: drive}
	}
}

// corpusFaces is the corpus scenario table keyed by agent: what the
// moments every agent has wait for.
var corpusFaces = map[string]struct {
	renderer       string                   // "" : the agent has one
	ready          func(*testing.T, *Agent) // at its empty prompt
	prompt, answer string                   // on screen when ready again; the answer's mark
	// submit types a prompt and its Enter (Gemini CLI may drop the
	// Enter: submitGemini presses it again).
	submit func(*testing.T, *Agent, string)
}{
	CorpusClaude: {"fullscreen", claudeReady, ClaudeReady, ClaudeAnswerMark, typeLine},
	CorpusCodex:  {"", codexReady, CodexPrompt, CodexAnswerMark, typeLine},
	CorpusGemini: {"", geminiReady, GeminiPrompt, GeminiAnswerMark, func(t *testing.T, a *Agent, text string) { submitGemini(t, a, text) }},
}

func typeLine(_ *testing.T, a *Agent, text string) { a.Type(text) }

// answerTurn drives agent through one answered prompt, back to ready.
func answerTurn(agent string) func(*testing.T, *Agent) {
	f := corpusFaces[agent]
	return func(t *testing.T, a *Agent) {
		f.ready(t, a)
		f.submit(t, a, "what is up")
		a.WaitScreen(f.answer + "ok: what is up")
		a.WaitScreen(f.prompt)
	}
}

// answerProse drives agent to an answer that reads like a prompt
// (corpusQuestion) while the agent is idle.
func answerProse(agent string) func(*testing.T, *Agent) {
	f := corpusFaces[agent]
	return func(t *testing.T, a *Agent) {
		f.ready(t, a)
		a.Model.Queue(fakemodel.Turn{Text: corpusQuestion})
		f.submit(t, a, "what next")
		a.WaitScreen("2. No")
		a.WaitScreen(f.prompt)
	}
}

func geminiReady(t *testing.T, a *Agent) { a.WaitGeminiReady() }

// geminiHang sends HANG and waits until the request hangs and Gemini CLI
// shows its spinner line.
func geminiHang(t *testing.T, a *Agent) {
	// Gemini CLI may drop the Enter: submitGemini presses it again.
	submitGemini(t, a, "HANG")
	a.WaitScreen(GeminiBusy)
}

func geminiConfirm(t *testing.T, a *Agent) {
	geminiReady(t, a)
	submitGemini(t, a, "RUN: touch approved.txt")
	a.WaitScreen(GeminiConfirm)
	a.WaitScreen("No, suggest changes (esc)")
}

func claudeReady(t *testing.T, a *Agent) { a.WaitScreen(ClaudeReady) }

func codexReady(t *testing.T, a *Agent) { a.WaitCodexReady() }

// claudeHang sends HANG and waits until the request hangs and Claude
// shows it is busy.
func claudeHang(t *testing.T, a *Agent) {
	a.Type("HANG")
	if _, ok := a.Model.WaitFor(ScreenTimeout, func(r fakemodel.Request) bool { return r.Turn.Hang }); !ok {
		t.Fatal("the HANG request never came")
	}
	a.WaitScreen(ClaudeBusy)
}

// codexHang sends HANG and waits until the request hangs and Codex shows
// its working line.
func codexHang(t *testing.T, a *Agent) {
	a.Type("HANG")
	if _, ok := a.Model.WaitFor(ScreenTimeout, func(r fakemodel.Request) bool { return r.Turn.Hang }); !ok {
		t.Fatal("the HANG request never came")
	}
	a.WaitScreen("Working (")
	a.WaitScreen(CodexBusy)
}

// claudeWrite has Claude Code ask to create notes.txt in the project.
func claudeWrite(t *testing.T, a *Agent) {
	claudeReady(t, a)
	a.Type("WRITE: " + filepath.Join(a.Dir, "notes.txt") + " hello")
	a.WaitScreen("Do you want to create notes.txt?")
}

func claudePermission(t *testing.T, a *Agent) {
	claudeReady(t, a)
	a.Type("RUN: touch approved.txt")
	a.WaitScreen(ClaudePermission)
	a.WaitScreen("4. No")
}

func codexApproval(t *testing.T, a *Agent) {
	codexReady(t, a)
	a.Type("RUN: touch approved.txt")
	a.WaitScreen(CodexApproval)
	a.WaitScreen("Press enter to confirm")
}

// gitInit makes the project directory a git repository, before the agent
// starts: Codex asks to trust only version-controlled folders.
// codexHooks installs sup's hooks for Codex before it starts.
func codexHooks(a *Agent) { a.InstallHooks(a.Sup, "codex", "--user") }

func gitInit(a *Agent) {
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = a.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		a.T.Fatalf("git init: %v: %s", err, out)
	}
}

// codexDefaultRetries drops the sandbox's request_max_retries = 0 and
// stream_max_retries = 0, before Codex starts, so it retries as it does
// out of the box.
func codexDefaultRetries(a *Agent) {
	path := filepath.Join(a.Home, ".codex", "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		a.T.Fatal(err)
	}
	s := string(b)
	for _, line := range []string{"request_max_retries = 0\n", "stream_max_retries = 0\n"} {
		if !strings.Contains(s, line) {
			a.T.Fatalf("%s lacks %q", path, line)
		}
		s = strings.Replace(s, line, "", 1)
	}
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		a.T.Fatal(err)
	}
}

// waitScreenGone waits until substr has left the visible screen.
func waitScreenGone(t *testing.T, a *Agent, substr string) {
	t.Helper()
	testutil.WaitUntil(t, ScreenTimeout, fmt.Sprintf("%q to leave pane %s", substr, a.Pane), func() bool {
		out, err := a.Tmux.Run("capture-pane", "-p", "-J", "-t", a.Pane)
		return err == nil && !strings.Contains(out, substr)
	})
}

// fill completes m's entry with its defaults.
func (m corpusMoment) fill() CorpusEntry {
	e := m.entry
	if e.Cols == 0 {
		e.Cols, e.Rows = testutil.DefaultCols, testutil.DefaultRows
	}
	return e
}

// TestRecordCorpus records the screen corpus (testdata/corpus) again when
// SUP_RECORD_CORPUS=1: every moment of corpusMoments, or those -run
// selects (TestRecordCorpus/claude/draft), each in a fresh sandbox. Only
// when every selected recording succeeded are the files and corpus.json
// updated (entries not recorded this time are kept, entries no longer in
// corpusMoments dropped) and the table in the README rewritten.
func TestRecordCorpus(t *testing.T) {
	if os.Getenv(RecordCorpusEnv) != "1" {
		t.Skipf("records the screen corpus only with %s=1", RecordCorpusEnv)
	}
	for agent := range corpusAgents {
		AgentBin(t, agent)
	}
	dir := CorpusDir(t)
	staging := t.TempDir()
	moments := corpusMoments()
	recorded := make([]*CorpusEntry, len(moments))
	// Runs once every recording (a parallel subtest) has ended.
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("some recordings failed: the corpus is left as it was")
			return
		}
		saveCorpus(t, dir, staging, moments, recorded)
	})
	for i, m := range moments {
		e := m.fill()
		t.Run(strings.TrimSuffix(e.File, ".raw"), func(t *testing.T) {
			t.Parallel()
			e.AgentVersion = AgentVersion(t, e.Agent)
			recordMoment(t, m, e, filepath.Join(staging, e.File))
			recorded[i] = &e
		})
	}
}

// saveCorpus moves the recordings made into staging into dir and writes
// the index: for each moment, in order, its new recording (recorded[i])
// or else its old entry with the moment's labels; files of old entries
// that no moment records any more are removed.
func saveCorpus(t *testing.T, dir, staging string, moments []corpusMoment, recorded []*CorpusEntry) {
	old, err := ReadCorpus(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("the old index: %v", err)
	}
	kept := map[string]CorpusEntry{}
	for _, e := range old.Recordings {
		kept[e.File] = e
	}
	var c Corpus
	listed := map[string]bool{}
	for i, m := range moments {
		listed[m.entry.File] = true
		if e := recorded[i]; e != nil {
			b, err := os.ReadFile(filepath.Join(staging, e.File))
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, e.File)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("recorded %s: %d bytes", e.File, len(b))
			c.Recordings = append(c.Recordings, *e)
		} else if e, ok := kept[m.entry.File]; ok {
			// Not recorded again: the labels come from the moment, what
			// describes the recording (version, renderer, size) stays.
			want := m.fill()
			e.Activity, e.Draft, e.Marker, e.Description = want.Activity, want.Draft, want.Marker, want.Description
			c.Recordings = append(c.Recordings, e)
		}
	}
	for file := range kept {
		if !listed[file] {
			t.Logf("dropping %s: no longer recorded", file)
			if err := os.Remove(filepath.Join(dir, file)); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	writeCorpus(t, dir, c)
}

// recordMoment records m into path: a fresh tmux server, the agent started
// with the recorder attached, driven to the moment, the recording stopped
// and replayed to check that its last screen shows the marker (and the
// draft).
func recordMoment(t *testing.T, m corpusMoment, e CorpusEntry, path string) {
	tm := testutil.NewTmux(t)
	rec := NewRecorder(t, path)
	opts := append(append([]Option(nil), m.opts...), rec.Option())
	var a *Agent
	switch e.Agent {
	case CorpusClaude:
		a = StartClaude(t, tm, opts...)
	case CorpusCodex:
		a = StartCodex(t, tm, opts...)
	case CorpusGemini:
		a = StartGemini(t, tm, opts...)
	}
	if o := NewOptions(opts...); o.Cols != e.Cols || o.Rows != e.Rows {
		t.Fatalf("pane %dx%d, but the entry says %dx%d", o.Cols, o.Rows, e.Cols, e.Rows)
	}
	m.drive(t, a)
	rec.Stop()
	live := a.Screen()
	if err := checkReplay(ReplayScreen(t, tm, path, e.Cols, e.Rows), e); err != nil {
		t.Fatalf("%v\nthe live screen:\n%s", err, live)
	}
}

// checkReplay checks a replayed recording's last screen against e.
func checkReplay(screen string, e CorpusEntry) error {
	if !strings.Contains(screen, e.Marker) {
		return fmt.Errorf("%s: the replayed screen lacks the marker %q:\n%s", e.File, e.Marker, screen)
	}
	if e.Draft != "" && !strings.Contains(screen, e.Draft) {
		return fmt.Errorf("%s: the replayed screen lacks the draft %q:\n%s", e.File, e.Draft, screen)
	}
	return nil
}

// writeCorpus writes c as dir's index and rewrites the README's table.
func writeCorpus(t *testing.T, dir string, c Corpus) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, CorpusIndex), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(dir, "README.md")
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(b), readmeTableBegin)
	_, after, ok2 := strings.Cut(rest, readmeTableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the %s … %s lines around the table", readme, readmeTableBegin, readmeTableEnd)
	}
	table := readmeTable(t, dir, c)
	if err := os.WriteFile(readme, []byte(before+readmeTableBegin+"\n"+table+readmeTableEnd+after), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The lines around the recordings table in testdata/corpus/README.md,
// which TestRecordCorpus rewrites.
const (
	readmeTableBegin = "<!-- recordings table: written by TestRecordCorpus -->"
	readmeTableEnd   = "<!-- end of recordings table -->"
)

// readmeTable is the README's table of c's recordings.
func readmeTable(t *testing.T, dir string, c Corpus) string {
	var b strings.Builder
	b.WriteString("| file | agent | size | activity | draft | what the last screen shows |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	for _, e := range c.Recordings {
		info, err := os.Stat(filepath.Join(dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		agent := e.Agent + " " + e.AgentVersion
		if e.Renderer == "classic" {
			agent += " (classic)"
		}
		draft := ""
		if e.Draft != "" {
			draft = "`" + e.Draft + "`"
		}
		desc := strings.ReplaceAll(e.Description, "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s | %dx%d, %.1f KB | %s | %s | %s |\n", e.File, agent, e.Cols, e.Rows, float64(info.Size())/1024, e.Activity, draft, desc)
	}
	return b.String()
}

// TestCorpusValid checks the committed screen corpus without any agent:
// the index parses and passes CheckCorpus, the README's table lists every
// recording, and every moment corpusMoments records is in the index.
// That each recording's last screen shows its marker (and its draft) is
// supervisor/screen's TestCorpusMarkers, and that tmux shows that same
// screen, row for row, its TestCorpusMatchesTmux: replaying the corpus
// into tmux here too was 54 panes and ~500 processes more, for a claim
// those two already make (specs/testing.md, "Fourth pass").
func TestCorpusValid(t *testing.T) {
	t.Parallel()
	dir := CorpusDir(t)
	c := LoadCorpus(t, dir)

	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	indexed := map[string]bool{}
	for _, e := range c.Recordings {
		indexed[e.File] = true
		if !bytes.Contains(readme, []byte("| `"+e.File+"` |")) {
			t.Errorf("README.md's table lacks %s", e.File)
		}
	}
	for _, m := range corpusMoments() {
		if !indexed[m.entry.File] {
			t.Errorf("%s is recorded by TestRecordCorpus but not in %s", m.entry.File, CorpusIndex)
		}
	}
	for _, agent := range []string{CorpusClaude, CorpusCodex, CorpusGemini} {
		if _, err := os.Stat(filepath.Join(AgentsDir(t), "package.json")); err != nil {
			break
		}
		pin := PinnedAgentVersion(t, agent)
		for _, e := range c.Recordings {
			if e.Agent == agent && e.AgentVersion != pin {
				t.Logf("note: %s was recorded with %s %s, .agents/package.json pins %s; record the corpus again (see its README)", e.File, agent, e.AgentVersion, pin)
			}
		}
	}

}

// TestCorpusLatest is the corpus check of a version-drift run
// (SUP_AGENTS=latest, specs/testing.md "Version drift"): it records every
// moment of corpusMoments with the newest agents into a scratch directory
// (testdata/corpus is left alone), checks the replay shows the moment, and
// classifies the recording with `sup classify` and the built-in profile:
// activity and draft must be the moment's labels. Each moment is a row of
// the drift table.
func TestCorpusLatest(t *testing.T) {
	if !Latest() {
		t.Skipf("checks the corpus moments against the newest agents only with %s=latest", AgentsEnv)
	}
	sup := testutil.BuildPackage(t, "./cmd/sup")
	scratch := t.TempDir()
	noUserConfig := t.TempDir()
	for _, m := range corpusMoments() {
		e := m.fill()
		t.Run(strings.TrimSuffix(e.File, ".raw"), func(t *testing.T) {
			t.Parallel()
			e.AgentVersion = AgentVersion(t, e.Agent)
			path := filepath.Join(scratch, e.File)
			recordMoment(t, m, e, path)
			cmd := exec.Command(sup, "classify", "--profile", e.Agent, "--size", fmt.Sprintf("%dx%d", e.Cols, e.Rows), "--json", path)
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+noUserConfig)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("sup classify %s: %v", path, err)
			}
			var got struct{ Activity, Draft, Rule string }
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("sup classify --json: %v: %s", err, out)
			}
			if got.Activity != e.Activity || got.Draft != e.Draft {
				t.Errorf("%s %s: classified %s (rule %q) draft %q, want %s draft %q\n%s", e.Agent, e.AgentVersion, got.Activity, got.Rule, got.Draft, e.Activity, e.Draft, ReplayScreen(t, testutil.NewTmux(t), path, e.Cols, e.Rows))
			}
		})
	}
}
