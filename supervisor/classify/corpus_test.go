package classify_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/classify"
	"github.com/sup-tmux/sup/supervisor/screen"
	"go.yaml.in/yaml/v3"
)

const corpusDir = "../../testdata/corpus"

type corpusEntry struct {
	File     string            `json:"file"`
	Agent    string            `json:"agent"`
	Cols     int               `json:"cols"`
	Rows     int               `json:"rows"`
	Activity activity.Activity `json:"activity"`
	Draft    string            `json:"draft"`
}

func loadCorpus(t testing.TB) []corpusEntry {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(corpusDir, "corpus.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Recordings []corpusEntry `json:"recordings"`
	}
	if err := json.Unmarshal(js, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Recordings) == 0 {
		t.Fatal("corpus.json lists no recordings")
	}
	return c.Recordings
}

// builtinPack reads the classify: section of a built-in profile file
// (package supervisor embeds the same files; the profile loader's own
// tests cover that path).
func builtinPack(t testing.TB, name string) *classify.Pack {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "plan", "profiles", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var prof struct {
		Classify *classify.Pack `yaml:"classify"`
	}
	if err := yaml.Unmarshal(data, &prof); err != nil {
		t.Fatalf("profiles/%s.yaml: %v", name, err)
	}
	if prof.Classify == nil {
		t.Fatalf("profiles/%s.yaml has no classify: section", name)
	}
	return prof.Classify
}

// corpusRules pins the rule that decides each recording, so a change to a
// pack that moves a decision to another rule shows up here.
var corpusRules = map[string]string{
	"claude/fresh_ready.raw":                  "prompt",
	"claude/busy_waiting.raw":                 "esc_to_interrupt",
	"claude/busy_streaming.raw":               "esc_to_interrupt",
	"claude/ready_after_turn.raw":             "prompt",
	"claude/permission_prompt.raw":            "permission",
	"claude/write_prompt.raw":                 "permission",
	"claude/classic_write_prompt.raw":         "permission",
	"claude/permission_prompt_80x24.raw":      "permission",
	"claude/ready_after_approval.raw":         "prompt",
	"claude/question_prose.raw":               "prompt",
	"claude/draft.raw":                        "prompt",
	"claude/interrupted_draft.raw":            "prompt",
	"claude/trust_dialog.raw":                 "trust_dialog",
	"claude/first_run_theme.raw":              "selection",
	"claude/first_run_security_notes.raw":     "press_enter",
	"claude/auto_mode_dialog.raw":             "selection",
	"gemini/first_run_trust.raw":              "trust_dialog",
	"claude/api_key_dialog.raw":               "api_key_dialog",
	"claude/settings_error_dialog.raw":        "settings_error_dialog",
	"claude/api_retrying_503.raw":             "api_retrying",
	"claude/api_unreachable.raw":              "api_retrying",
	"claude/api_error_final.raw":              "api_error",
	"claude/classic_fresh_ready.raw":          "prompt",
	"claude/classic_busy_streaming.raw":       "esc_to_interrupt",
	"claude/classic_permission_prompt.raw":    "permission",
	"claude/classic_ready_after_approval.raw": "prompt",
	"codex/fresh_ready.raw":                   "state_idle",
	"codex/busy_waiting.raw":                  "state_working",
	"codex/busy_streaming.raw":                "state_working",
	"codex/ready_after_turn.raw":              "state_done",
	"codex/approval_prompt.raw":               "approval",
	"codex/approval_prompt_80x24.raw":         "approval",
	"codex/ready_after_approval.raw":          "state_done",
	"codex/question_prose.raw":                "state_done",
	"codex/draft.raw":                         "state_idle",
	"codex/interrupted.raw":                   "state_idle",
	"codex/trust_screen.raw":                  "trust_screen",
	"codex/hooks_review.raw":                  "hooks_review",
	"codex/hooks_list.raw":                    "hooks_list",
	"codex/api_retrying_503.raw":              "reconnecting",
	"codex/api_unreachable.raw":               "reconnecting",
	"codex/api_error_final.raw":               "state_error",
	"gemini/fresh_ready.raw":                  "prompt",
	"gemini/busy_waiting.raw":                 "esc_to_cancel",
	"gemini/busy_streaming.raw":               "esc_to_cancel",
	"gemini/ready_after_turn.raw":             "prompt",
	"gemini/confirmation.raw":                 "tool_confirmation",
	"gemini/confirmation_80x24.raw":           "tool_confirmation",
	"gemini/ready_after_approval.raw":         "prompt",
	"gemini/question_prose.raw":               "prompt",
	"gemini/draft.raw":                        "prompt",
	"gemini/interrupted.raw":                  "prompt",
	"gemini/trust_dialog.raw":                 "trust_dialog",
	"gemini/api_error_final.raw":              "api_error",
}

// renderEntry renders a recording's last screen and returns it with the
// built-in pack of its agent (loaded once per agent into packs).
func renderEntry(t *testing.T, packs map[string]*classify.Pack, e corpusEntry) (*classify.Pack, screen.Snapshot) {
	t.Helper()
	pack := packs[e.Agent]
	if pack == nil {
		pack = builtinPack(t, e.Agent)
		packs[e.Agent] = pack
	}
	data, err := os.ReadFile(filepath.Join(corpusDir, e.File))
	if err != nil {
		t.Fatal(err)
	}
	return pack, classify.Render(data, e.Cols, e.Rows)
}

// TestCorpusClassify classifies the last screen of every recording of
// testdata/corpus with the built-in pack of its agent: activity and draft
// must be the labelled ones, from the full snapshot and again from its
// plain text alone (no ANSI renditions, so no dim cells: the placeholders
// must then be told apart by their text and the footer).
func TestCorpusClassify(t *testing.T) {
	packs := map[string]*classify.Pack{}
	for _, e := range loadCorpus(t) {
		t.Run(e.File, func(t *testing.T) {
			pack, snap := renderEntry(t, packs, e)
			if snap.InFrame {
				t.Errorf("recording ends inside a synchronized frame")
			}
			got := pack.Classify(snap)
			t.Logf("%-40s %-18s rule %-22s reason %-14s draft %q", e.File, got.Activity, got.Rule, got.Reason, got.Draft)
			if got.Activity != e.Activity || !got.Matched {
				t.Errorf("activity %s (rule %q, matched %v), want %s\n%s", got.Activity, got.Rule, got.Matched, e.Activity, snap.Text)
			}
			if got.Draft != e.Draft {
				t.Errorf("draft %q, want %q", got.Draft, e.Draft)
			}
			if want, ok := corpusRules[e.File]; ok && got.Rule != want {
				t.Errorf("decided by rule %q, want %q", got.Rule, want)
			}
			snap.ANSI = ""
			plain := pack.Classify(snap)
			if plain != got {
				t.Errorf("without ANSI: %+v, with: %+v", plain, got)
			}
		})
	}
}

// TestCorpusClassifyScreenOnly drops the stream signals (title, OSC 7501
// state) and classifies again: the screen rules alone must still get every
// recording right, but for the one moment only the stream shows — Codex
// streaming an answer looks exactly like Codex at rest
// (testdata/corpus/README.md).
func TestCorpusClassifyScreenOnly(t *testing.T) {
	streamOnly := map[string]activity.Activity{"codex/busy_streaming.raw": activity.Ready}
	packs := map[string]*classify.Pack{}
	for _, e := range loadCorpus(t) {
		t.Run(e.File, func(t *testing.T) {
			pack, snap := renderEntry(t, packs, e)
			snap.Signals.Title, snap.Signals.AgentState = "", ""
			got := pack.Classify(snap)
			want := e.Activity
			if a, ok := streamOnly[e.File]; ok {
				want = a
			}
			t.Logf("%-40s %-18s rule %s", e.File, got.Activity, got.Rule)
			if got.Activity != want || got.Draft != e.Draft {
				t.Errorf("screen only: %s (rule %q) draft %q, want %s draft %q", got.Activity, got.Rule, got.Draft, want, e.Draft)
			}
		})
	}
}

// TestCorpusRuleVariants edits real corpus screens to reach the rules the
// corpus itself never needs (each recording is decided by an earlier or
// stronger rule), and checks that every rule of the claude, codex and gemini packs
// decides at least one screen here or in the corpus.
func TestCorpusRuleVariants(t *testing.T) {
	replace := func(old, new string) func(*screen.Snapshot) {
		return func(s *screen.Snapshot) {
			found := false
			for i, l := range s.Lines {
				if strings.Contains(l, old) {
					s.Lines[i] = strings.ReplaceAll(l, old, new)
					found = true
				}
			}
			if !found {
				panic("variant: " + old + " not on the screen")
			}
		}
	}
	setLine := func(row int, text string) func(*screen.Snapshot) {
		return func(s *screen.Snapshot) { s.Lines[row] = text }
	}
	title := func(t string) func(*screen.Snapshot) { return func(s *screen.Snapshot) { s.Signals.Title = t } }
	state := func(v string) func(*screen.Snapshot) { return func(s *screen.Snapshot) { s.Signals.AgentState = v } }
	tests := []struct {
		name, file string
		edits      []func(*screen.Snapshot)
		activity   activity.Activity
		rule       string
	}{
		{"claude spinner without the footer", "claude/busy_waiting.raw",
			[]func(*screen.Snapshot){replace(" · esc to interrupt", "")}, activity.Busy, "spinner"},
		{"claude spinner with counts", "claude/busy_streaming.raw",
			[]func(*screen.Snapshot){replace(" · esc to interrupt", "")}, activity.Busy, "spinner"},
		{"a finished turn's line is no spinner", "claude/ready_after_turn.raw", nil, activity.Ready, "prompt"},
		{"claude title spinner", "claude/fresh_ready.raw",
			[]func(*screen.Snapshot){title("◐ Claude Code")}, activity.Busy, "title_spinner"},
		{"claude error placeholder alone", "claude/api_error_final.raw",
			[]func(*screen.Snapshot){replace("● There's an issue with the selected model", "● An answer")}, activity.Error, "error_placeholder"},
		{"claude error placeholder typed over: a draft, still the failed turn", "claude/api_error_final.raw",
			[]func(*screen.Snapshot){replace("? for shortcuts · ", "")}, activity.Error, "api_error"},
		{"claude final error, older wording", "claude/api_error_final.raw",
			[]func(*screen.Snapshot){replace("● There's an issue with the selected model", "  ⎿  API Error: 500"), replace("Once fixed, resend your message", "")}, activity.Error, "api_error"},
		{"claude retry line in the transcript, long ago", "claude/ready_after_turn.raw",
			[]func(*screen.Snapshot){setLine(4, "✻ API error · retrying in 2s · attempt 2/10")}, activity.Ready, "prompt"},
		{"claude final error, then a new turn", "claude/api_error_final.raw",
			[]func(*screen.Snapshot){setLine(11, "❯ next"), setLine(13, "✶ Thinking…"), replace("? for shortcuts", "esc to interrupt"), replace("Once fixed, resend your message", "")}, activity.Busy, "esc_to_interrupt"},
		{"claude other dialog", "claude/permission_prompt.raw",
			[]func(*screen.Snapshot){replace("❯ 1. Yes", "❯ 1. Allow")}, activity.NeedsConfirmation, "selection"},
		{"claude other dialog, one option, with its footer", "claude/settings_error_dialog.raw",
			[]func(*screen.Snapshot){replace("Settings Error", "Something new"), replace("2. Exit and fix manually", ""), replace("3. Continue without these settings", "")}, activity.NeedsConfirmation, "dialog"},
		{"claude dialog text in the transcript", "claude/question_prose.raw",
			[]func(*screen.Snapshot){replace("  1. Yes", " ❯ 1. Yes"), replace("  2. No", " Esc to cancel · Tab to amend")}, activity.Ready, "prompt"},
		{"claude unseen dialog, no footer yet", "claude/permission_prompt.raw",
			[]func(*screen.Snapshot){replace("❯ 1. Yes", "❯ 1. Allow"), replace("Esc to cancel · Tab to amend", "")}, activity.NeedsConfirmation, "selection"},
		{"claude unseen dialog, second option selected", "claude/settings_error_dialog.raw",
			[]func(*screen.Snapshot){replace("Settings Error", "Something new"), replace("❯ 1. Fix", "  1. Fix"), replace("  2. Exit", "❯ 2. Exit"), replace("Enter to confirm · Esc to cancel", "")}, activity.NeedsConfirmation, "selection"},
		{"codex unseen dialog, second option selected", "codex/trust_screen.raw",
			[]func(*screen.Snapshot){replace("Trust this folder?", "Pick one"), replace("› 1. Trust", "  1. Trust"), replace("  2. Back", "› 2. Back")}, activity.NeedsConfirmation, "selection"},
		{"gemini unseen dialog", "gemini/trust_dialog.raw",
			[]func(*screen.Snapshot){replace("Do you trust the files in this folder?", "Pick one")}, activity.NeedsConfirmation, "selection"},
		{"codex title action required", "codex/ready_after_turn.raw",
			[]func(*screen.Snapshot){state(""), title("[ ! ] Action Required | t | project")}, activity.NeedsConfirmation, "title_action_required"},
		{"codex hooks review", "codex/trust_screen.raw",
			[]func(*screen.Snapshot){replace("Trust this folder?", "Hooks need review")}, activity.NeedsConfirmation, "hooks_review"},
		{"codex other dialog", "codex/trust_screen.raw",
			[]func(*screen.Snapshot){replace("Trust this folder?", "Pick one")}, activity.NeedsConfirmation, "selection"},
		{"codex working line", "codex/busy_waiting.raw",
			[]func(*screen.Snapshot){state(""), title("project")}, activity.Busy, "working_line"},
		{"codex title spinner", "codex/busy_streaming.raw",
			[]func(*screen.Snapshot){state("")}, activity.Busy, "title_spinner"},
		{"codex error line", "codex/api_error_final.raw",
			[]func(*screen.Snapshot){state("")}, activity.Error, "error_line"},
		{"codex reconnecting beats state=working", "codex/api_unreachable.raw", nil, activity.Error, "reconnecting"},
		{"codex approval without state", "codex/approval_prompt.raw",
			[]func(*screen.Snapshot){state(""), title("")}, activity.NeedsConfirmation, "approval"},
		{"codex blocked before the approval is drawn", "codex/busy_waiting.raw",
			[]func(*screen.Snapshot){state("state=blocked")}, activity.NeedsConfirmation, "state_blocked"},
		{"codex prompt without state", "codex/draft.raw",
			[]func(*screen.Snapshot){state("")}, activity.Ready, "prompt"},
		{"codex stale error, new turn working", "codex/api_error_final.raw",
			[]func(*screen.Snapshot){state(""), title("project"), setLine(11, "› next"), setLine(13, "• Working (0s • esc to interrupt)")}, activity.Busy, "working_line"},
		{"codex interrupted, then an error", "codex/api_error_final.raw",
			[]func(*screen.Snapshot){state(""), setLine(4, "■ Conversation interrupted - use /feedback if something went wrong")}, activity.Error, "error_line"},
		{"codex error, then interrupted", "codex/api_error_final.raw",
			[]func(*screen.Snapshot){state(""), setLine(11, "› next"), setLine(13, "■ Conversation interrupted - use /feedback if something went wrong")}, activity.Ready, "prompt"},
		{"codex state=done with a stale error further up", "codex/ready_after_turn.raw",
			[]func(*screen.Snapshot){setLine(3, "■ unexpected status 503")}, activity.Ready, "state_done"},
		{"gemini title action required", "gemini/ready_after_turn.raw",
			[]func(*screen.Snapshot){title("✋  Action Required (project)")}, activity.NeedsConfirmation, "title_action_required"},
		{"gemini title working", "gemini/ready_after_turn.raw",
			[]func(*screen.Snapshot){title("✦  Working… (project)")}, activity.Busy, "title_working"},
		{"gemini spinner line without the title", "gemini/busy_waiting.raw",
			[]func(*screen.Snapshot){title("")}, activity.Busy, "esc_to_cancel"},
		{"gemini api error, then a new prompt", "gemini/api_error_final.raw",
			[]func(*screen.Snapshot){replace("ℹ This request failed.", " > next")}, activity.Ready, "prompt"},
		{"gemini api error, then an answer", "gemini/api_error_final.raw",
			[]func(*screen.Snapshot){replace("ℹ This request failed.", "✦ an answer")}, activity.Ready, "prompt"},
		{"gemini confirmation text in the transcript", "gemini/question_prose.raw",
			[]func(*screen.Snapshot){replace("2. No", "3. No, suggest changes (esc)")}, activity.Ready, "prompt"},
	}
	entries := map[string]corpusEntry{}
	for _, e := range loadCorpus(t) {
		entries[e.File] = e
	}
	// Rules a test of their own decides on a screen cut from a recording.
	decided := map[string]bool{"codex/starting": true} // TestCodexStarting
	for file, rule := range corpusRules {
		decided[strings.Split(file, "/")[0]+"/"+rule] = true
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entries[tt.file]
			data, err := os.ReadFile(filepath.Join(corpusDir, e.File))
			if err != nil {
				t.Fatal(err)
			}
			snap := classify.Render(data, e.Cols, e.Rows)
			for _, ed := range tt.edits {
				ed(&snap)
			}
			snap.Text, snap.ANSI = strings.TrimRight(strings.Join(snap.Lines, "\n"), "\n"), ""
			got := builtinPack(t, e.Agent).Classify(snap)
			if got.Activity != tt.activity || got.Rule != tt.rule {
				t.Errorf("%s (rule %q), want %s (rule %q)\n%s", got.Activity, got.Rule, tt.activity, tt.rule, snap.Text)
			}
			decided[e.Agent+"/"+got.Rule] = true
		})
	}
	for _, agent := range []string{"claude", "codex", "gemini"} {
		for _, r := range builtinPack(t, agent).Rules() {
			if !decided[agent+"/"+r.Name] {
				t.Errorf("%s rule %s decides no screen of the corpus or of these variants", agent, r.Name)
			}
		}
	}
}

// TestUnitShellPack: the shell pack only names questions (so the kernel
// still says busy or ready), on the last non-blank line, with the question
// as summary; a line that merely mentions one is not one.
func TestUnitShellPack(t *testing.T) {
	p := builtinPack(t, "shell")
	if !p.OnlyPrompts() || p.HasInput() {
		t.Fatalf("the shell pack must hold needs_confirmation rules only: the foreground process check decides the rest")
	}
	for _, c := range []struct{ screen, rule, summary string }{
		{"$ ./setup\nOverwrite config.yaml? [y/N] ", "yes_no", "Overwrite config.yaml? [y/N]"},
		{"Allow? (y/N)", "yes_no", "Allow? (y/N)"},
		{"Install 3 packages [Y/n]: ", "yes_no", "Install 3 packages [Y/n]:"},
		{"Are you sure you want to continue connecting (yes/no/[fingerprint])? ", "yes_no_words", "Are you sure you want to continue connecting (yes/no/[fingerprint])?"},
		{"Really delete (yes/no)? ", "yes_no_words", "Really delete (yes/no)?"},
		{"3 files changed.\nContinue? ", "continue", "Continue?"},
		{"Press ENTER to continue...", "press_enter", "Press ENTER to continue..."},
		{"[sudo] password for ann: ", "password", "[sudo] password for ann:"},
		{"Enter passphrase for key '/home/a/.ssh/id': ", "password", "Enter passphrase for key '/home/a/.ssh/id':"},
		{"Overwrite? [y/N] y\nwritten\n$ ", "", ""},
		{"the password: field is required\n$ ", "", ""},
		{"", "", ""},
	} {
		res := p.Classify(classify.Render([]byte(strings.ReplaceAll(c.screen, "\n", "\r\n")), 100, 10))
		wantQuestion(t, c.screen, res, c.rule, c.summary)
	}
}

// TestCorpusSelectionSummary: with the worded rules' signs edited out of
// the recorded dialogs, each pack's structural `selection` rule decides
// and names the dialog by its first line.
func TestCorpusSelectionSummary(t *testing.T) {
	type edit struct{ old, new string }
	tests := []struct {
		file    string
		edits   []edit
		summary string
	}{
		{"claude/trust_dialog.raw", []edit{{"Enter to confirm · Esc to cancel", ""}}, "Accessing workspace:"},
		{"claude/api_key_dialog.raw", []edit{{"Enter to confirm · Esc to cancel", ""}}, "Detected a custom API key in your environment"},
		{"claude/permission_prompt.raw", []edit{{"Esc to cancel · Tab to amend", ""}}, "Bash command"},
		{"codex/trust_screen.raw", []edit{{"Trust this folder?", "Pick one?"}}, "Pick one? Codex can read, edit, and run files here, subject to your permission settings. Folder settings"},
		{"codex/approval_prompt.raw", []edit{{"Press enter to confirm or esc to cancel", ""}}, "Would you like to run the following command?"},
		{"gemini/trust_dialog.raw", []edit{{"Do you trust the files in this folder?", "Pick one?"}}, "Pick one?"},
		{"gemini/confirmation.raw", []edit{{"No, suggest changes (esc)", "No"}}, "? Shell  touch approved.txt"},
	}
	entries := map[string]corpusEntry{}
	for _, e := range loadCorpus(t) {
		entries[e.File] = e
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			e := entries[tt.file]
			data, err := os.ReadFile(filepath.Join(corpusDir, e.File))
			if err != nil {
				t.Fatal(err)
			}
			snap := classify.Render(data, e.Cols, e.Rows)
			for _, ed := range tt.edits {
				found := false
				for i, l := range snap.Lines {
					if strings.Contains(l, ed.old) {
						snap.Lines[i], found = strings.ReplaceAll(l, ed.old, ed.new), true
					}
				}
				if !found {
					t.Fatalf("%q is not on the screen", ed.old)
				}
			}
			snap.Text, snap.ANSI = strings.TrimRight(strings.Join(snap.Lines, "\n"), "\n"), ""
			snap.Signals.Title, snap.Signals.AgentState = "", ""
			got := builtinPack(t, e.Agent).Classify(snap)
			if got.Activity != activity.NeedsConfirmation || got.Rule != "selection" || got.Summary != tt.summary {
				t.Errorf("%s rule %q summary %q, want needs_confirmation rule selection summary %q\n%s", got.Activity, got.Rule, got.Summary, tt.summary, snap.Text)
			}
		})
	}
}

// Announces tells a rule of terminal signals alone, which can announce a
// dialog before it is drawn, from one that sees it drawn; a signal with no
// drawn counterpart in its pack is the dialog.
func TestUnitAnnounces(t *testing.T) {
	p := builtinPack(t, "codex")
	for rule, want := range map[string]bool{"approval": false, "state_blocked": true, "title_action_required": true, "no such rule": false} {
		if got := p.Announces(rule); got != want {
			t.Errorf("codex: Announces(%q) = %v, want %v", rule, got, want)
		}
	}
	titled, err := classify.Parse([]byte("rules:\n  - {name: confirm, activity: needs_confirmation, reason: permission, title: '^\\[\\?\\] '}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if titled.Announces("confirm") {
		t.Error("a title rule with no drawn counterpart announces, want it read as the dialog")
	}
}

// TestCodexStarting: Codex draws its welcome card and composer while it
// still loads, before its first OSC 7501 report and its status line, and
// may then draw the trust screen over them (the first run in a CI run read
// ready there). The recording of Codex at rest, cut before its first
// spinner title and state report, is that loading screen: busy, starting.
func TestCodexStarting(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "codex", "fresh_ready.raw"))
	if err != nil {
		t.Fatal(err)
	}
	cut := len(data)
	for _, mark := range []string{"\x1b]7501;", "\x1b]0;⠋"} {
		if i := bytes.Index(data, []byte(mark)); i >= 0 && i < cut {
			cut = i
		}
	}
	if cut == len(data) {
		t.Fatal("codex/fresh_ready.raw has no state report or spinner title to cut at: record it again or update this test")
	}
	pack := builtinPack(t, "codex")
	snap := classify.Render(data[:cut], 120, 40)
	if !strings.Contains(snap.Text, "Ask Codex to do anything") || strings.Contains(snap.Text, " default · ") {
		t.Fatalf("the cut recording is not the loading screen:\n%s", snap.Text)
	}
	if got := pack.Classify(snap); got.Activity != activity.Busy || got.Rule != "starting" {
		t.Fatalf("loading screen: %s (rule %q), want busy (rule starting)\n%s", got.Activity, got.Rule, snap.Text)
	}
}

// TestUnitShellPackPrograms: any other question on the last line is one
// only while a program other than the login shell reads the terminal
// (`program: true`): the login shell's prompt, whatever PS1 says, never is.
func TestUnitShellPackPrograms(t *testing.T) {
	p := builtinPack(t, "shell")
	for _, c := range []struct{ screen, rule, summary string }{
		{"$ rm -i x\nrm: remove regular empty file 'x'? ", "question", "rm: remove regular empty file 'x'?"},
		{"cp: overwrite 'b.txt'? ", "question", "cp: overwrite 'b.txt'?"},
		{"What is your name? ", "question", "What is your name?"},
		{"Is this OK? (yes) ", "question", "Is this OK? (yes)"},
		{"package name: (demo) ", "value", "package name: (demo)"},
		{"Project name [demo]: ", "value", "Project name [demo]:"},
		{"Enter a number: ", "value", "Enter a number:"},
		{"*** Commands ***\n    1: clean    5: quit\nWhat now> ", "value", "What now>"},
		{">>> ", "", ""},
		{"next> ", "", ""},
		{"[P]ublish v9   [A]bort", "", ""},
		{"building 3 of 9: ", "", ""},
	} {
		snap := classify.Render([]byte(strings.ReplaceAll(c.screen, "\n", "\r\n")), 100, 10)
		if res := p.Classify(snap); res.Matched {
			t.Errorf("%q at the login shell's prompt: rule %s, want none", c.screen, res.Rule)
		}
		res := p.ClassifyFacts(snap, classify.Facts{Program: true})
		wantQuestion(t, c.screen, res, c.rule, c.summary)
	}
}

// TestCorpusFileSummary: Claude Code's file permission prompt read from
// the screen alone (no hook) names the action and the file, in both
// renderers, and so does an edit of an existing file (the recording with
// its title and first diff line edited to an Edit's); a Bash prompt keeps
// its command.
func TestCorpusFileSummary(t *testing.T) {
	p := builtinPack(t, "claude")
	for _, c := range []struct {
		file, old, new, summary string
	}{
		{"claude/write_prompt.raw", "", "", "Create file: notes.txt"},
		{"claude/classic_write_prompt.raw", "", "", "Create file: notes.txt"},
		{"claude/write_prompt.raw", "Create file", "Edit file", "Edit file: notes.txt"},
		{"claude/classic_write_prompt.raw", "  1 hello", "  1 -alpha", "Create file: notes.txt"},
		{"claude/permission_prompt.raw", "", "", "touch approved.txt"},
	} {
		data, err := os.ReadFile(filepath.Join(corpusDir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		snap := classify.Render(data, 120, 40)
		if c.old != "" {
			for i, l := range snap.Lines {
				snap.Lines[i] = strings.ReplaceAll(l, c.old, c.new)
			}
			snap.Text, snap.ANSI = strings.TrimRight(strings.Join(snap.Lines, "\n"), "\n"), ""
		}
		if got := p.Classify(snap); got.Rule != "permission" || got.Summary != c.summary {
			t.Errorf("%s (%q→%q): rule %s summary %q, want permission %q", c.file, c.old, c.new, got.Rule, got.Summary, c.summary)
		}
	}
}

// wantQuestion checks a shell-pack reading of screen: no rule when rule is
// "", else rule's needs_confirmation with summary.
func wantQuestion(t *testing.T, screen string, res classify.Result, rule, summary string) {
	t.Helper()
	if rule == "" {
		if res.Matched {
			t.Errorf("%q: rule %s, want none", screen, res.Rule)
		}
		return
	}
	if res.Rule != rule || res.Activity != activity.NeedsConfirmation || res.Summary != summary {
		t.Errorf("%q: %s %s %q, want %s needs_confirmation %q", screen, res.Rule, res.Activity, res.Summary, rule, summary)
	}
}
