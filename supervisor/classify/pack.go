// Package classify reads an agent's rendered screen: a Pack is data (the
// `classify:` section of a profile) with ordered rules, each a set of
// conditions on a screen.Snapshot — regexes on the visible text, on the
// bottom lines, on the regions above and below the agent's input box, on
// the stream signals (title, OSC 7501 agent state), the alternate screen,
// the shape of a selection list (options.go: dialogs whatever their
// wording) — that yields an activity and a reason. The pack's `draft:` block says
// where the input box is, which also gives the unsent text in it.
//
// Precedence among the rules that match: needs_confirmation > error > busy
// > ready; within one activity the first matching rule in the pack's order
// names the result. Error beats busy because an agent retrying a failing
// API keeps every busy sign on its screen (testdata/corpus/README.md).
//
// This package must not import package supervisor (which holds profiles):
// a Pack decodes itself from YAML (UnmarshalYAML) and compiles its regexes
// once, at load. See specs/detection.md, "Classifier packs".
package classify

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/sup-tmux/sup/supervisor/activity"
	"go.yaml.in/yaml/v3"

	"github.com/sup-tmux/sup/internal/yamlkeys"
)

// Pack is a compiled classifier pack. The zero value and a nil *Pack have
// no rules and classify every screen as unknown.
type Pack struct {
	input *inputSpec
	rules []Rule
}

// Rule is one compiled rule of a pack.
type Rule struct {
	Name     string
	Activity activity.Activity
	Reason   string
	Line     int // line of the rule in its YAML file, 0 if unknown
	conds    []cond
	summary  *regexp.Regexp // group 1 on the screen text is the Result's summary; nil: none
	options  *optionSpec    // the rule's options: condition; without summary, the list's title is the summary
}

// Result is what a pack makes of one screen.
type Result struct {
	Activity activity.Activity `json:"activity"`
	Reason   string            `json:"reason"`
	Rule     string            `json:"rule"`  // the rule that decided, "" if none matched
	Draft    string            `json:"draft"` // unsent text in the input box, "" if none (or no input box)
	// Summary is what the deciding rule's summary regex captured (the
	// command a permission prompt asks about), "" if it has none or it
	// did not match.
	Summary string `json:"summary"`
	Matched bool   `json:"matched"`
}

// rank orders activities by precedence; 0 for anything a rule cannot yield.
func rank(a activity.Activity) int {
	switch a {
	case activity.NeedsConfirmation:
		return 4
	case activity.Error:
		return 3
	case activity.Busy:
		return 2
	case activity.Ready:
		return 1
	}
	return 0
}

// HasRules reports whether the pack has at least one rule. Safe on nil.
func (p *Pack) HasRules() bool { return p != nil && len(p.rules) > 0 }

// OnlyPrompts reports whether the pack has rules and every one of them
// says needs_confirmation: it names a program's questions but not whether
// it works or waits, which the kernel then tells (line mode). Safe on nil.
func (p *Pack) OnlyPrompts() bool {
	if !p.HasRules() {
		return false
	}
	for _, r := range p.rules {
		if r.Activity != activity.NeedsConfirmation {
			return false
		}
	}
	return true
}

// Announces reports whether the named rule reads only the terminal's
// signals (a title, Codex's OSC 7501 state, modes) while another rule of
// the same activity and reason reads drawn text (a positive condition on
// the screen's lines or an option list): the signal can speak before the
// agent draws what it announces — Codex reports state=blocked 0.2–1 s
// before its approval is on the screen, and a key typed then lands in its
// input box. A signal with no drawn counterpart (a profile whose title is
// its only sign of a dialog) is the dialog as far as the pack can tell.
func (p *Pack) Announces(rule string) bool {
	if p == nil {
		return false
	}
	i := slices.IndexFunc(p.rules, func(r Rule) bool { return r.Name == rule })
	if i < 0 || p.rules[i].readsScreen() {
		return false
	}
	r := p.rules[i]
	return slices.ContainsFunc(p.rules, func(o Rule) bool {
		return o.Activity == r.Activity && o.Reason == r.Reason && o.readsScreen()
	})
}

// readsScreen: a positive condition on drawn text.
func (r Rule) readsScreen() bool {
	return slices.ContainsFunc(r.conds, func(c cond) bool {
		switch c.reg {
		case regScreen, regBottom, regAbove, regBelow, regOptions:
			return !c.neg
		}
		return false
	})
}

// HasInput reports whether the pack defines an input box (a draft: block).
func (p *Pack) HasInput() bool { return p != nil && p.input != nil }

// Rules returns the pack's rules in order (for listings and tests).
func (p *Pack) Rules() []Rule {
	if p == nil {
		return nil
	}
	return slices.Clone(p.rules)
}

// Parse decodes and compiles a pack from YAML (the contents of a profile's
// `classify:` section, as a document of its own).
func Parse(data []byte) (*Pack, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, err
	}
	p := &Pack{}
	if n.Kind == 0 {
		return p, nil
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		if n.Content[0].ShortTag() == "!!null" {
			return p, nil
		}
		return p, p.UnmarshalYAML(n.Content[0])
	}
	return p, p.UnmarshalYAML(&n)
}

// MustParse is Parse that panics on error, for tests and fixed packs.
func MustParse(data string) *Pack {
	p, err := Parse([]byte(data))
	if err != nil {
		panic(err)
	}
	return p
}

// The YAML face of a pack. Pointers tell "absent" from "empty".
type rawPack struct {
	Draft yaml.Node `yaml:"draft"`
	Rules yaml.Node `yaml:"rules"`
}

type rawConds struct {
	Screen          *string `yaml:"screen"`
	NotScreen       *string `yaml:"not_screen"`
	Bottom          int     `yaml:"bottom"`
	Match           *string `yaml:"match"`
	NotMatch        *string `yaml:"not_match"`
	AboveInput      *string `yaml:"above_input"`
	NotAboveInput   *string `yaml:"not_above_input"`
	AboveInputLines int     `yaml:"above_input_lines"`
	BelowInput      *string `yaml:"below_input"`
	NotBelowInput   *string `yaml:"not_below_input"`
	Title           *string `yaml:"title"`
	NotTitle        *string `yaml:"not_title"`
	AgentState      *string `yaml:"agent_state"`
	NotAgentState   *string `yaml:"not_agent_state"`
	AltScreen       *bool   `yaml:"alt_screen"`
	InputBox        *bool   `yaml:"input_box"`
	Program         *bool   `yaml:"program"`
	// Options is a mapping (rawOptions); a yaml.Node so that its keys
	// are checked and its errors carry its line.
	Options yaml.Node `yaml:"options"`
}

type rawRule struct {
	Name     string `yaml:"name"`
	Activity string `yaml:"activity"`
	Reason   string `yaml:"reason"`
	Summary  string `yaml:"summary"`
	rawConds `yaml:",inline"`
}

type rawPlaceholder struct {
	Text     string `yaml:"text"`
	rawConds `yaml:",inline"`
}

type rawInput struct {
	Line         string      `yaml:"line"`
	NotLine      string      `yaml:"not_line"`
	NotBottom    string      `yaml:"not_bottom"`
	Above        string      `yaml:"above"`
	Below        string      `yaml:"below"`
	Continuation string      `yaml:"continuation"`
	DropDim      bool        `yaml:"drop_dim"`
	Placeholders []yaml.Node `yaml:"placeholders"`
}

// UnmarshalYAML decodes and compiles a pack. It replaces the whole pack:
// a profile file that overlays another replaces its `classify:` section,
// never merges rules into it. Errors name the rule (or the draft block)
// and its line.
func (p *Pack) UnmarshalYAML(n *yaml.Node) error {
	*p = Pack{}
	if err := checkKeys(n, "classify", rawPack{}); err != nil {
		return err
	}
	var raw rawPack
	if err := n.Decode(&raw); err != nil {
		return fmt.Errorf("classify: %s", yamlErr(err))
	}
	if raw.Draft.Kind != 0 && raw.Draft.ShortTag() != "!!null" {
		in, err := compileInput(&raw.Draft)
		if err != nil {
			return fmt.Errorf("classify: draft (line %d): %w", raw.Draft.Line, err)
		}
		p.input = in
	}
	if raw.Rules.Kind != 0 && raw.Rules.ShortTag() != "!!null" {
		if raw.Rules.Kind != yaml.SequenceNode {
			return fmt.Errorf("classify: rules (line %d): want a list of rules", raw.Rules.Line)
		}
		seen := map[string]int{}
		for i, rn := range raw.Rules.Content {
			r, err := compileRule(rn, p.input != nil)
			if err != nil {
				where := fmt.Sprintf("rules[%d]", i)
				if r.Name != "" {
					where = fmt.Sprintf("rule %q", r.Name)
				}
				return fmt.Errorf("classify: %s (line %d): %w", where, rn.Line, err)
			}
			if first, dup := seen[r.Name]; dup {
				return fmt.Errorf("classify: rule %q (line %d): name already used at line %d", r.Name, rn.Line, first)
			}
			seen[r.Name] = rn.Line
			p.rules = append(p.rules, r)
		}
	}
	return nil
}

var ruleName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

func compileRule(n *yaml.Node, hasInput bool) (Rule, error) {
	var raw rawRule
	if n.Kind == yaml.MappingNode {
		// Decode the name first, so every later error can name the rule.
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "name" {
				raw.Name = n.Content[i+1].Value
			}
		}
	}
	r := Rule{Name: raw.Name, Line: n.Line}
	if err := checkKeys(n, "rule", rawRule{}); err != nil {
		return r, err
	}
	if err := n.Decode(&raw); err != nil {
		return r, errors.New(yamlErr(err))
	}
	if raw.Name == "" {
		return r, errors.New("name is required")
	}
	if !ruleName.MatchString(raw.Name) {
		return r, fmt.Errorf("name %q: use lower-case letters, digits, '_', '-' and '.'", raw.Name)
	}
	r.Activity = activity.Activity(raw.Activity)
	if rank(r.Activity) == 0 {
		return r, fmt.Errorf("activity %q: want one of ready, busy, needs_confirmation, error", raw.Activity)
	}
	r.Reason = raw.Reason
	if r.Reason == "" {
		r.Reason = raw.Name
	}
	if raw.Summary != "" {
		re, err := compileRegex("summary", raw.Summary)
		if err != nil {
			return r, err
		}
		if re.NumSubexp() < 1 {
			return r, fmt.Errorf("summary %q: needs a capture group for the summary", raw.Summary)
		}
		r.summary = re
	}
	conds, err := compileConds(raw.rawConds, hasInput)
	if err != nil {
		return r, err
	}
	if len(conds) == 0 {
		return r, errors.New("no condition: a rule needs at least one of " + strings.Join(condKeys(), ", "))
	}
	r.conds = conds
	for _, c := range conds {
		if c.opts != nil {
			r.options = c.opts
		}
	}
	return r, nil
}

func compileInput(n *yaml.Node) (*inputSpec, error) {
	if err := checkKeys(n, "draft", rawInput{}); err != nil {
		return nil, err
	}
	var raw rawInput
	if err := n.Decode(&raw); err != nil {
		return nil, errors.New(yamlErr(err))
	}
	if raw.Line == "" {
		return nil, errors.New("line is required: the regex of the input box's first line, with a group for the draft")
	}
	in := &inputSpec{dropDim: raw.DropDim}
	var err error
	if in.line, err = compileRegex("line", raw.Line); err != nil {
		return nil, err
	}
	if in.line.NumSubexp() < 1 {
		return nil, fmt.Errorf("line %q: needs a capture group for the draft", raw.Line)
	}
	for _, f := range []struct {
		key, src string
		dst      **regexp.Regexp
	}{
		{"not_line", raw.NotLine, &in.notLine},
		{"not_bottom", raw.NotBottom, &in.notBottom},
		{"above", raw.Above, &in.above},
		{"below", raw.Below, &in.below},
		{"continuation", raw.Continuation, &in.continuation},
	} {
		if f.src == "" {
			continue
		}
		if *f.dst, err = compileRegex(f.key, f.src); err != nil {
			return nil, err
		}
	}
	for i := range raw.Placeholders {
		pn := &raw.Placeholders[i]
		ph, err := compilePlaceholder(pn)
		if err != nil {
			return nil, fmt.Errorf("placeholders[%d] (line %d): %w", i, pn.Line, err)
		}
		in.placeholders = append(in.placeholders, ph)
	}
	return in, nil
}

func compilePlaceholder(n *yaml.Node) (placeholder, error) {
	if err := checkKeys(n, "placeholder", rawPlaceholder{}); err != nil {
		return placeholder{}, err
	}
	var raw rawPlaceholder
	if err := n.Decode(&raw); err != nil {
		return placeholder{}, errors.New(yamlErr(err))
	}
	if raw.Text == "" {
		return placeholder{}, errors.New("text is required: the regex of the placeholder's text")
	}
	text, err := compileRegex("text", raw.Text)
	if err != nil {
		return placeholder{}, err
	}
	conds, err := compileConds(raw.rawConds, true)
	if err != nil {
		return placeholder{}, err
	}
	return placeholder{text: text, conds: conds}, nil
}

func compileConds(raw rawConds, hasInput bool) ([]cond, error) {
	var cs []cond
	add := func(key string, src *string, reg region, neg bool, n int) error {
		if src == nil {
			return nil
		}
		re, err := compileRegex(key, *src)
		if err != nil {
			return err
		}
		cs = append(cs, cond{key: key, reg: reg, re: re, neg: neg, n: n})
		return nil
	}
	if raw.Bottom < 0 || raw.AboveInputLines < 0 {
		return nil, errors.New("bottom and above_input_lines must not be negative")
	}
	if (raw.Match != nil || raw.NotMatch != nil) != (raw.Bottom > 0) {
		return nil, errors.New("bottom: N and match (or not_match) go together: match applies to the bottom N non-blank lines")
	}
	if raw.AboveInputLines > 0 && raw.AboveInput == nil && raw.NotAboveInput == nil {
		return nil, errors.New("above_input_lines needs above_input or not_above_input")
	}
	if !hasInput && (raw.AboveInput != nil || raw.NotAboveInput != nil || raw.BelowInput != nil ||
		raw.NotBelowInput != nil || raw.InputBox != nil) {
		return nil, errors.New("above_input, below_input and input_box need the pack's draft: block, which defines the input box")
	}
	for _, c := range []struct {
		key string
		src *string
		reg region
		neg bool
		n   int
	}{
		{"screen", raw.Screen, regScreen, false, 0},
		{"not_screen", raw.NotScreen, regScreen, true, 0},
		{"match", raw.Match, regBottom, false, raw.Bottom},
		{"not_match", raw.NotMatch, regBottom, true, raw.Bottom},
		{"above_input", raw.AboveInput, regAbove, false, raw.AboveInputLines},
		{"not_above_input", raw.NotAboveInput, regAbove, true, raw.AboveInputLines},
		{"below_input", raw.BelowInput, regBelow, false, 0},
		{"not_below_input", raw.NotBelowInput, regBelow, true, 0},
		{"title", raw.Title, regTitle, false, 0},
		{"not_title", raw.NotTitle, regTitle, true, 0},
		{"agent_state", raw.AgentState, regAgentState, false, 0},
		{"not_agent_state", raw.NotAgentState, regAgentState, true, 0},
	} {
		if err := add(c.key, c.src, c.reg, c.neg, c.n); err != nil {
			return nil, err
		}
	}
	if raw.AltScreen != nil {
		cs = append(cs, cond{key: "alt_screen", reg: regAltScreen, want: *raw.AltScreen})
	}
	if raw.InputBox != nil {
		cs = append(cs, cond{key: "input_box", reg: regInputBox, want: *raw.InputBox})
	}
	if raw.Program != nil {
		cs = append(cs, cond{key: "program", reg: regProgram, want: *raw.Program})
	}
	if raw.Options.Kind != 0 && raw.Options.ShortTag() != "!!null" {
		o, err := compileOptions(&raw.Options)
		if err != nil {
			return nil, err
		}
		cs = append(cs, cond{key: "options", reg: regOptions, opts: o})
	}
	// All must hold, so test the cheap ones first: a flag, a title, a few
	// lines, before a regex over the whole screen.
	slices.SortStableFunc(cs, func(a, b cond) int { return cost(a) - cost(b) })
	return cs, nil
}

func cost(c cond) int {
	switch c.reg {
	case regAltScreen, regInputBox, regProgram:
		return 0
	case regTitle, regAgentState:
		return 1
	case regBottom, regBelow:
		return 2
	case regAbove:
		if c.n > 0 {
			return 2
		}
		return 3
	case regOptions:
		return 3
	}
	return 4
}

func compileRegex(key, src string) (*regexp.Regexp, error) {
	if src == "" {
		return nil, fmt.Errorf("%s: empty regex (it would match anything)", key)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("%s: bad regex: %v", key, err)
	}
	return re, nil
}

// checkKeys refuses keys the raw struct does not have, listing the valid
// ones, so a typo never silently drops a condition.
func checkKeys(n *yaml.Node, what string, into any) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: want a mapping, got %s", what, kindName(n))
	}
	valid := yamlkeys.Of(reflect.TypeOf(into))
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !slices.Contains(valid, k.Value) {
			sorted := slices.Clone(valid)
			slices.Sort(sorted)
			return fmt.Errorf("line %d: unknown key %s in %s (valid: %s)", k.Line, k.Value, what, strings.Join(sorted, ", "))
		}
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func condKeys() []string {
	var keys []string
	for _, k := range yamlkeys.Of(reflect.TypeOf(rawConds{})) {
		if k != "bottom" && k != "above_input_lines" {
			keys = append(keys, k)
		}
	}
	return keys
}

// yamlErr flattens a yaml error to text, so no caller unwraps it into a
// *yaml.TypeError and loses the rule's name in front of it.
func yamlErr(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	return err.Error()
}
