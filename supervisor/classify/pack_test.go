package classify_test

import (
	"strings"
	"testing"

	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/classify"
	"github.com/sup-tmux/sup/supervisor/screen"
	"go.yaml.in/yaml/v3"
)

// raw turns screen lines into the bytes that draw them from the top left
// (CR LF between lines: the screen, like a raw tty, does not add the CR).
func raw(lines ...string) string { return strings.Join(lines, "\r\n") }

func render(s string) screen.Snapshot { return classify.Render([]byte(s), 60, 12) }

// boxPack has an input box like Claude's: `> ` between two rules.
const boxPack = `
draft:
  line: '^>(?: (.*))?$'
  above: '^-{4,}$'
  below: '^-{4,}$'
  continuation: '^  (.*)$'
  drop_dim: true
  placeholders:
    - text: '^Try again$'
      below_input: 'shortcuts'
rules:
  - {name: ask, activity: needs_confirmation, screen: '(?m)^ +> 1\. Yes', input_box: false, summary: '(?m)^Run (.+)\?$'}
  - {name: failing, activity: error, reason: retrying, above_input: 'retrying in', above_input_lines: 2}
  - {name: footer_busy, activity: busy, reason: working, below_input: 'esc to interrupt'}
  - {name: title_busy, activity: busy, title: '^\*'}
  - {name: waiting, activity: ready, reason: prompt, input_box: true}
`

func TestUnitClassifyRules(t *testing.T) {
	p := classify.MustParse(boxPack)
	tests := []struct {
		name  string
		input string
		want  classify.Result
	}{
		{"ready at the prompt", raw("hello", "", "-----", "> ", "-----", "? for shortcuts"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Matched: true}},
		{"busy footer", raw("hello", "-----", "> ", "-----", "esc to interrupt"),
			classify.Result{Activity: activity.Busy, Reason: "working", Rule: "footer_busy", Matched: true}},
		{"busy from the title; reason defaults to the rule name", "\x1b]0;* working\x07" + raw("-----", "> ", "-----"),
			classify.Result{Activity: activity.Busy, Reason: "title_busy", Rule: "title_busy", Matched: true}},
		{"error beats busy: the retry screen keeps the busy footer", raw("* API error · retrying in 2s", "-----", "> ", "-----", "esc to interrupt"),
			classify.Result{Activity: activity.Error, Reason: "retrying", Rule: "failing", Matched: true}},
		{"above_input_lines: an old retry line further up does not count", raw("* retrying in 2s", "answer", "done", "-----", "> ", "-----"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Matched: true}},
		{"a dialog hides the input box; its summary regex names what it asks about", raw("Run it?", " > 1. Yes", "   2. No", "Esc to cancel"),
			classify.Result{Activity: activity.NeedsConfirmation, Reason: "ask", Rule: "ask", Summary: "it", Matched: true}},
		{"a summary regex that does not match leaves the summary empty", raw("Proceed?", " > 1. Yes", "   2. No"),
			classify.Result{Activity: activity.NeedsConfirmation, Reason: "ask", Rule: "ask", Matched: true}},
		{"prose that reads like a dialog, input box there", raw(" > 1. Yes", "   2. No", "-----", "> ", "-----"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Matched: true}},
		{"a box without its bottom rule is no box", raw("-----", "> ", "text"),
			classify.Result{Activity: activity.Unknown}},
		{"nothing matches", raw("just text"),
			classify.Result{Activity: activity.Unknown}},
		{"draft", raw("-----", "> fix the bug", "-----", "esc to interrupt"),
			classify.Result{Activity: activity.Busy, Reason: "working", Rule: "footer_busy", Draft: "fix the bug", Matched: true}},
		{"multi-line draft", raw("-----", "> fix the bug", "  in fetch.go", "", "-----"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Draft: "fix the bug\nin fetch.go", Matched: true}},
		{"placeholder, told by the footer", raw("-----", "> Try again", "-----", "? for shortcuts"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Matched: true}},
		{"the placeholder's text typed as a draft", raw("-----", "> Try again", "-----", "manual mode"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Draft: "Try again", Matched: true}},
		{"dim text is no draft", raw("-----", "> \x1b[7mA\x1b[0;2msk anything\x1b[0m", "-----", "manual mode"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Matched: true}},
		{"dim suggestion after a draft, cursor on it", raw("-----", "> /he\x1b[7ml\x1b[0;2mp\x1b[0m", "-----"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Draft: "/he", Matched: true}},
		{"cursor inside a draft", raw("-----", "> fi\x1b[7mx\x1b[0m it", "-----"),
			classify.Result{Activity: activity.Ready, Reason: "prompt", Rule: "waiting", Draft: "fix it", Matched: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Classify(render(tt.input)); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestUnitClassifyPrecedence: whatever the order of the rules,
// needs_confirmation > error > busy > ready; within one activity the first
// matching rule names the result.
func TestUnitClassifyPrecedence(t *testing.T) {
	rules := map[string]string{
		"r":     "{name: r, activity: ready, screen: x}",
		"b":     "{name: b, activity: busy, screen: x}",
		"e":     "{name: e, activity: error, screen: x}",
		"n":     "{name: n, activity: needs_confirmation, screen: x}",
		"n2":    "{name: n2, activity: needs_confirmation, screen: x}",
		"never": "{name: never, activity: needs_confirmation, screen: y}",
	}
	tests := []struct {
		order []string
		want  string
	}{
		{[]string{"r", "b", "e", "n"}, "n"},
		{[]string{"n", "e", "b", "r"}, "n"},
		{[]string{"never", "r", "b", "e"}, "e"},
		{[]string{"r", "b"}, "b"},
		{[]string{"b", "r"}, "b"},
		{[]string{"r"}, "r"},
		{[]string{"n2", "r", "n"}, "n2"},
		{[]string{"r", "n", "n2"}, "n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		b.WriteString("rules:\n")
		for _, n := range tt.order {
			b.WriteString("  - " + rules[n] + "\n")
		}
		p := classify.MustParse(b.String())
		if got := p.Classify(render("x")); got.Rule != tt.want || !got.Matched {
			t.Errorf("order %v: rule %q (matched %v), want %q", tt.order, got.Rule, got.Matched, tt.want)
		}
	}
}

func TestUnitClassifyConditions(t *testing.T) {
	snap := render("\x1b]0;✳ Claude\x07\x1b]7501;state=working:app=codex\x1b\\" + raw("top line", "", "middle", "", "bottom one", "bottom two"))
	alt := render("\x1b[?1049h" + raw("on the alternate screen"))
	tests := []struct {
		rule string
		alt  bool
		want bool
	}{
		{"screen: 'middle'", false, true},
		{"screen: '(?m)^middle$'", false, true},
		{"screen: 'absent'", false, false},
		{"not_screen: 'absent'", false, true},
		{"not_screen: 'middle'", false, false},
		{"screen: middle, not_screen: absent", false, true},
		{"screen: middle, not_screen: top", false, false},
		{"{bottom: 1, match: 'two'}", false, true},
		{"{bottom: 1, match: 'one'}", false, false},
		{"{bottom: 2, match: '(?s)one.*two'}", false, true},
		{"{bottom: 2, match: 'middle'}", false, false},
		{"{bottom: 3, match: 'middle'}", false, true},
		{"{bottom: 1, not_match: 'one'}", false, true},
		{"title: '^✳ '", false, true},
		{"not_title: '^✳ '", false, false},
		{"agent_state: '(^|:)state=working(:|$)'", false, true},
		{"agent_state: 'state=done'", false, false},
		{"not_agent_state: 'state=done'", false, true},
		{"alt_screen: false", false, true},
		{"alt_screen: true", false, false},
		{"alt_screen: true", true, true},
	}
	for _, tt := range tests {
		body := strings.Trim(tt.rule, "{}")
		p, err := classify.Parse([]byte("rules:\n  - {name: r, activity: busy, " + body + "}\n"))
		if err != nil {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		s := snap
		if tt.alt {
			s = alt
		}
		if got := p.Classify(s).Matched; got != tt.want {
			t.Errorf("%s: matched %v, want %v", tt.rule, got, tt.want)
		}
	}
}

// TestUnitClassifyInputRegions: above_input, below_input and input_box on a
// Codex-like input line (no borders; the lowest `› ` line unless it is a
// dialog option).
func TestUnitClassifyInputRegions(t *testing.T) {
	p := classify.MustParse(`
draft:
  line: '^›(?: (.*))?$'
  not_line: '^› \d+\. '
  continuation: '^  (\S.*)$'
  placeholders: [{text: '^Ask anything$'}]
rules:
  - {name: option, activity: needs_confirmation, input_box: false, screen: '(?m)^› 1\. '}
  - {name: failed, activity: error, above_input: '(?m)^■ ', not_above_input: 'interrupted', above_input_lines: 2}
  - {name: status, activity: busy, below_input: 'status line'}
  - {name: prompt, activity: ready, input_box: true}
`)
	tests := []struct {
		input      string
		rule       string
		draft      string
		noMatchYet bool
	}{
		{raw("› old prompt", "• answer", "", "› Ask anything", "", "  model · status line"), "status", "", false},
		{raw("› old prompt", "• answer", "", "› Ask anything", "", "  model · footer"), "prompt", "", false},
		{raw("› old prompt", "■ unexpected status 503", "", "› Ask anything"), "failed", "", false},
		{raw("› old prompt", "■ Conversation interrupted", "", "› Ask anything"), "prompt", "", false},
		{raw("■ unexpected status 503", "› next", "• ok", "", "› "), "prompt", "", false},
		{raw("› RUN: touch x", "  Would you like to run it?", "› 1. Yes", "  2. No"), "option", "", false},
		{raw("› typed text", "  and more", "", "  model · footer"), "prompt", "typed text\nand more", false},
		{raw("nothing here"), "", "", true},
	}
	for _, tt := range tests {
		got := p.Classify(render(tt.input))
		if got.Rule != tt.rule || got.Draft != tt.draft || got.Matched == tt.noMatchYet {
			t.Errorf("%q: %+v, want rule %q draft %q", tt.input, got, tt.rule, tt.draft)
		}
	}
}

func TestUnitClassifyNilAndEmpty(t *testing.T) {
	var nilPack *classify.Pack
	if got := nilPack.Classify(render("x")); got.Activity != activity.Unknown || got.Matched {
		t.Errorf("nil pack: %+v", got)
	}
	if nilPack.HasRules() || nilPack.HasInput() || nilPack.Rules() != nil {
		t.Error("nil pack has rules")
	}
	for _, src := range []string{"", "{}", "rules: []", "rules:", "draft:"} {
		p, err := classify.Parse([]byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if p.HasRules() {
			t.Errorf("%q: has rules", src)
		}
		if got := p.Classify(render("x")); got.Activity != activity.Unknown || got.Matched {
			t.Errorf("%q: %+v", src, got)
		}
	}
}

func TestUnitPackErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string // a regexp-free substring of the error
	}{
		{"rules:\n  - {name: busy_footer, activity: busy, screen: '(esc'}",
			`rule "busy_footer" (line 2): screen: bad regex: error parsing regexp: missing closing ): ` + "`(esc`"},
		{"rules:\n  - {name: r, activity: busy, screem: 'x'}",
			`rule "r" (line 2): line 2: unknown key screem in rule (valid: above_input, above_input_lines, activity, agent_state, alt_screen, below_input, bottom, input_box, match, name, not_above_input, not_agent_state, not_below_input, not_match, not_screen, not_title, options, program, reason, screen, summary, title)`},
		{"rules:\n  - {name: r, activity: working, screen: x}", `rule "r" (line 2): activity "working": want one of ready, busy, needs_confirmation, error`},
		{"rules:\n  - {name: r, activity: unknown, screen: x}", `activity "unknown"`},
		{"rules:\n  - {activity: busy, screen: x}", "rules[0] (line 2): name is required"},
		{"rules:\n  - {name: 'Bad Name', activity: busy, screen: x}", `name "Bad Name"`},
		{"rules:\n  - {name: r, activity: busy, screen: x}\n  - {name: r, activity: ready, screen: y}", `rule "r" (line 3): name already used at line 2`},
		{"rules:\n  - {name: r, activity: busy}", `rule "r" (line 2): no condition`},
		{"rules:\n  - {name: r, activity: busy, match: x}", "bottom: N and match (or not_match) go together"},
		{"rules:\n  - {name: r, activity: busy, bottom: 2}", "bottom: N and match (or not_match) go together"},
		{"rules:\n  - {name: r, activity: busy, bottom: -1, match: x}", "must not be negative"},
		{"rules:\n  - {name: r, activity: busy, screen: x, above_input_lines: 2}", "above_input_lines needs above_input"},
		{"rules:\n  - {name: r, activity: busy, above_input: x}", "need the pack's draft: block"},
		{"rules:\n  - {name: r, activity: busy, input_box: true}", "need the pack's draft: block"},
		{"rules:\n  - {name: r, activity: busy, screen: ''}", "screen: empty regex"},
		{"rules:\n  - {name: r, activity: busy, screen: x, summary: 'x.*'}", `rule "r" (line 2): summary "x.*": needs a capture group`},
		{"rules:\n  - {name: r, activity: busy, screen: x, summary: '(x'}", `rule "r" (line 2): summary: bad regex`},
		{"rules:\n  - {name: r, activity: busy, bottom: x, match: y}", `rule "r" (line 2): line 2: cannot unmarshal`},
		{"rules:\n  - {name: r, activity: busy, alt_screen: maybe}", `rule "r" (line 2)`},
		{"rules: {name: r}", "rules (line 1): want a list of rules"},
		{"rules:\n  - just a string", "rules[0] (line 2): rule: want a mapping"},
		{"rulez: []", "line 1: unknown key rulez in classify (valid: draft, rules)"},
		{"draft:\n  line: '^> .*$'", "draft (line 2): line \"^> .*$\": needs a capture group"},
		{"draft:\n  above: x", "draft (line 2): line is required"},
		{"draft:\n  line: '^> (.*)$'\n  below: '['", "draft (line 2): below: bad regex"},
		{"draft:\n  line: '^> (.*)$'\n  size: 3", "unknown key size in draft (valid: above, below, continuation, drop_dim, line, not_bottom, not_line, placeholders)"},
		{"draft:\n  line: '^> (.*)$'\n  placeholders:\n    - {text: '('}", "draft (line 2): placeholders[0] (line 4): text: bad regex"},
		{"draft:\n  line: '^> (.*)$'\n  placeholders:\n    - {below_input: x}", "placeholders[0] (line 4): text is required"},
		{"- a list", "classify: want a mapping, got a list"},
	}
	for _, tt := range tests {
		_, err := classify.Parse([]byte(tt.src))
		if err == nil {
			t.Errorf("%q: no error, want %q", tt.src, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant …%s…", tt.src, err, tt.want)
		}
	}
}

// TestUnitPackReplacedWhole: decoding over a pack that already holds rules
// (a user profile over a built-in one) replaces it whole, draft included;
// an empty classify: removes it.
func TestUnitPackReplacedWhole(t *testing.T) {
	var prof struct {
		Classify *classify.Pack `yaml:"classify"`
	}
	prof.Classify = classify.MustParse(boxPack)
	if err := yaml.Unmarshal([]byte("classify:\n  rules:\n    - {name: c, activity: error, screen: z}\n"), &prof); err != nil {
		t.Fatal(err)
	}
	if rs := prof.Classify.Rules(); len(rs) != 1 || rs[0].Name != "c" || rs[0].Activity != activity.Error || rs[0].Reason != "c" || rs[0].Line != 3 {
		t.Errorf("rules %+v", rs)
	}
	if prof.Classify.HasInput() {
		t.Error("the old pack's draft: block survived")
	}
	if err := yaml.Unmarshal([]byte("classify:\n"), &prof); err != nil {
		t.Fatal(err)
	}
	if prof.Classify != nil {
		t.Errorf("empty classify: left %+v", prof.Classify)
	}
}
