package classify_test

import (
	"strings"
	"testing"

	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/classify"
)

// optionsPack has a Claude-like input box, a worded dialog rule and the
// structural one after it.
const optionsPack = `
draft:
  line: '^>(?: (.*))?$'
  above: '^-{4,}$'
  below: '^-{4,}$'
rules:
  - {name: trust, activity: needs_confirmation, reason: trust, input_box: false, screen: 'trust this folder'}
  - name: selection
    activity: needs_confirmation
    reason: question
    input_box: false
    options:
      selected: '^ +(❯) \S'
      top: '^-{4,}$'
  - {name: waiting, activity: ready, reason: prompt, input_box: true}
`

// boxedPack reads a dialog drawn in a │ box, like Gemini CLI's.
const boxedPack = `
rules:
  - name: selection
    activity: needs_confirmation
    options:
      selected: '^ *(?:│ +)?(●) \S'
      top: '^ *╭─'
      content: '^ *│ ?(.*?) *│?$'
`

func TestUnitClassifyOptions(t *testing.T) {
	p := classify.MustParse(optionsPack)
	question := func(summary string) classify.Result {
		return classify.Result{Activity: activity.NeedsConfirmation, Reason: "question", Rule: "selection", Summary: summary, Matched: true}
	}
	tests := []struct {
		name  string
		input string
		want  classify.Result
	}{
		{"an unseen dialog, no footer: its first line is the summary",
			raw("old output", "----------", "", "  Make auto mode your default?", "", "  Auto mode lets Claude decide.", "", "  ❯ Yes, make it my default", "    No, ask me each time"),
			question("Make auto mode your default?")},
		{"the second option selected",
			raw("----------", " Pick one", " ❯ 1. Yes", "   2. No"),
			question("Pick one")},
		{"the selection on the last option, wrapped options above",
			raw("----------", " Pick one", "   1. Yes, and always allow access to a very long", "      path", " ❯ 2. No"),
			question("Pick one")},
		{"a blank line between the options",
			raw("----------", " Pick one", "   1. Yes", "", " ❯ 2. No"),
			question("Pick one")},
		{"no top border: the first line of the paragraph above the list",
			raw("Banner v1", "", " Pick one", " It matters.", "", " ❯ 1. Yes", "   2. No"),
			question("Pick one")},
		{"a numbered list: the dialog's text at the options' column is no option",
			raw("", " Pick one", "   Some text", "   more text", "", " ❯ 1. Yes", "   2. No"),
			question("Pick one")},
		{"a check mark before the current choice: the others align with its text",
			raw("----------", " Choose the text style", "", " ❯ ✔ Auto (match terminal)", "     Dark mode", "     Light mode"),
			question("Choose the text style")},
		{"a worded rule keeps precedence",
			raw("----------", " Do you trust this folder?", " ❯ Yes, I trust this folder", "   No, exit"),
			classify.Result{Activity: activity.NeedsConfirmation, Reason: "trust", Rule: "trust", Matched: true}},
		{"a lone marked line is no list",
			raw("----------", " Pick one", " ❯ 1. Yes", "", "some text"),
			classify.Result{Activity: activity.Unknown}},
		{"two blank lines end the list",
			raw("----------", " Pick one", " ❯ 1. Yes", "", "", "   2. No"),
			classify.Result{Activity: activity.Unknown}},
		{"other lines are not aligned with the selected option's text",
			raw("----------", " Pick one", " ❯ 1. Yes", "  2. No"),
			classify.Result{Activity: activity.Unknown}},
		{"a prompt in the transcript (column 0) is no option",
			raw("❯ fix it", "  and the tests", "working"),
			classify.Result{Activity: activity.Unknown}},
		{"an option list above the input box is prose",
			raw(" ❯ 1. Yes", "   2. No", "-----", "> ", "-----"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Matched: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Classify(render(tt.input)); got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestUnitClassifyOptionsBoxed(t *testing.T) {
	p := classify.MustParse(boxedPack)
	got := p.Classify(render(raw(
		"✦ an answer",
		"╭──────────────────────╮",
		"│                      │",
		"│ Allow this?          │",
		"│                      │",
		"│ ● 1. Allow once      │",
		"│   2. No              │",
		"╰──────────────────────╯")))
	want := classify.Result{Activity: activity.NeedsConfirmation, Reason: "selection", Rule: "selection", Summary: "Allow this?", Matched: true}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestUnitOptionsErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"rules:\n  - {name: r, activity: busy, options: {top: x}}", `rule "r" (line 2): options: selected is required`},
		{"rules:\n  - {name: r, activity: busy, options: {selected: '^❯ '}}", `options: selected "^❯ ": needs a capture group around the selection mark`},
		{"rules:\n  - {name: r, activity: busy, options: {selected: '(❯'}}", "options: selected: bad regex"},
		{"rules:\n  - {name: r, activity: busy, options: {selected: '(❯)', top: '['}}", "options: top: bad regex"},
		{"rules:\n  - {name: r, activity: busy, options: {selected: '(❯)', content: '│'}}", "options: content \"│\": needs a capture group"},
		{"rules:\n  - {name: r, activity: busy, options: {selected: '(❯)', mark: x}}", "line 2: unknown key mark in options (valid: content, selected, top)"},
		{"rules:\n  - {name: r, activity: busy, options: [x]}", "options: want a mapping, got a list"},
	}
	for _, tt := range tests {
		_, err := classify.Parse([]byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant …%s…", tt.src, err, tt.want)
		}
	}
}
