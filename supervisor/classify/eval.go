package classify

import (
	"regexp"
	"strings"

	"github.com/sup-tmux/sup/supervisor/activity"
	"github.com/sup-tmux/sup/supervisor/screen"
)

// region is what a condition looks at.
type region uint8

const (
	regScreen     region = iota + 1 // the whole visible text
	regBottom                       // the bottom n non-blank lines
	regAbove                        // the lines above the input box (the last n non-blank ones if n > 0)
	regBelow                        // the lines below the input box
	regTitle                        // Signals.Title
	regAgentState                   // Signals.AgentState (OSC 7501 payload)
	regAltScreen                    // bool: the alternate screen is active
	regInputBox                     // bool: the pack's input box is on the screen
	regOptions                      // a selection list (optionSpec) is on the screen
	regProgram                      // bool: a program other than the login shell reads the terminal (Facts.Program)
)

type cond struct {
	key  string
	reg  region
	re   *regexp.Regexp
	neg  bool
	n    int
	want bool
	opts *optionSpec // regOptions only
}

// inputSpec is a pack's draft: block: where the input box is and what in
// it is a draft.
type inputSpec struct {
	line         *regexp.Regexp // the box's first text line; group 1 = the draft's first line
	notLine      *regexp.Regexp // the lowest line matching line also matches this: no input box (a dialog's option)
	notBottom    *regexp.Regexp // the screen's last non-blank line matches this: no input box (a dialog's footer)
	above        *regexp.Regexp // the line right above must match (the box's top border)
	below        *regexp.Regexp // the box ends at the first line below matching this (bottom border)
	continuation *regexp.Regexp // further draft lines; group 1 = their text
	dropDim      bool           // dim cells (placeholders, suggestions) are not part of the draft
	placeholders []placeholder
}

type placeholder struct {
	text  *regexp.Regexp
	conds []cond
}

// box is the input box found on one screen; rows index snapshot lines.
type box struct {
	top, prompt, end int // first row (top border if any), the prompt row, last row (bottom border if any)
	rows             []int
}

// view is one snapshot being classified; regions are computed on demand.
type view struct {
	snap    *screen.Snapshot
	pack    *Pack
	lines   []string
	text    *string
	bottoms map[int]string
	aboves  map[int]string
	below   *string
	boxDone bool
	box     *box
	ansi    []string // the ANSI rendering's rows, split on first use
	ansiOK  bool
	lists   map[*optionSpec]*optionList // findOptions per spec, nil entries included
	facts   Facts
}

// Facts are what the supervisor knows besides the screen, for the
// conditions that read them (`program:`).
type Facts struct {
	// Program: a program other than the login shell is the terminal's
	// foreground and blocked reading it (specs/detection.md, "Prompts of
	// any program").
	Program bool
}

// Classify applies the pack's rules to a snapshot. Every rule is a set of
// conditions that must all hold; among matching rules needs_confirmation
// beats error beats busy beats ready, and within one activity the first in
// pack order decides. No match: activity unknown, Matched false. The draft
// is reported whenever the pack's input box is on the screen, whatever the
// activity.
//
// Classify trusts the snapshot: callers should not classify one taken
// inside a synchronized-output frame (InFrame: half drawn; retry a few ms
// later) and should treat one that is Desynced with care.
func (p *Pack) Classify(snap screen.Snapshot) Result { return p.ClassifyFacts(snap, Facts{}) }

// ClassifyFacts is Classify with the facts the `program:` condition reads.
func (p *Pack) ClassifyFacts(snap screen.Snapshot, f Facts) Result {
	res := Result{Activity: activity.Unknown}
	if p == nil {
		return res
	}
	v := &view{snap: &snap, pack: p, lines: snap.Lines, facts: f}
	if v.lines == nil && snap.Text != "" {
		v.lines = strings.Split(snap.Text, "\n")
	}
	best := 0
	var decided *Rule
	for i := range p.rules {
		r := &p.rules[i]
		rk := rank(r.Activity)
		if rk <= best {
			continue
		}
		if v.all(r.conds) {
			best, decided = rk, r
			res = Result{Activity: r.Activity, Reason: r.Reason, Rule: r.Name, Matched: true}
		}
	}
	switch {
	case decided != nil && decided.summary != nil:
		if m := decided.summary.FindStringSubmatch(v.screenText()); m != nil {
			res.Summary = activity.FirstLine(joinGroups(m[1:]))
		}
	case decided != nil && decided.options != nil:
		if l := v.options(decided.options); l != nil {
			res.Summary = activity.FirstLine(l.title)
		}
	}
	res.Draft = v.draft()
	return res
}

// joinGroups joins a summary's matched groups with ": " (a dialog's
// title and its subject: `Create file: notes.txt`); groups that matched
// nothing are left out.
func joinGroups(gs []string) string {
	var out []string
	for _, g := range gs {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return strings.Join(out, ": ")
}

func (v *view) all(cs []cond) bool {
	for i := range cs {
		if !v.holds(&cs[i]) {
			return false
		}
	}
	return true
}

func (v *view) holds(c *cond) bool {
	switch c.reg {
	case regAltScreen:
		return v.snap.AltScreen == c.want
	case regInputBox:
		return (v.findBox() != nil) == c.want
	case regProgram:
		return v.facts.Program == c.want
	case regOptions:
		return v.options(c.opts) != nil
	}
	s, _, _ := v.region(c)
	return c.re.MatchString(s) != c.neg
}

// region is the text a text condition's regex reads, and, for the stream
// signals, what names it in `sup explain` ("title: ", "agent_state: ";
// "" for screen text). ok is false for a condition that reads no text.
func (v *view) region(c *cond) (s, label string, ok bool) {
	switch c.reg {
	case regScreen:
		return v.screenText(), "", true
	case regBottom:
		return v.bottom(c.n), "", true
	case regAbove:
		return v.above(c.n), "", true
	case regBelow:
		return v.belowInput(), "", true
	case regTitle:
		return v.snap.Signals.Title, "title: ", true
	case regAgentState:
		return v.snap.Signals.AgentState, "agent_state: ", true
	}
	return "", "", false
}

// options finds o's selection list on the screen, once per view.
func (v *view) options(o *optionSpec) *optionList {
	if l, ok := v.lists[o]; ok {
		return l
	}
	l := o.findOptions(v.lines)
	if v.lists == nil {
		v.lists = map[*optionSpec]*optionList{}
	}
	v.lists[o] = l
	return l
}

func (v *view) screenText() string {
	if v.text == nil {
		t := v.snap.Text
		if t == "" && len(v.lines) > 0 {
			t = strings.TrimRight(strings.Join(v.lines, "\n"), "\n")
		}
		v.text = &t
	}
	return *v.text
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// lastNonBlank joins the last n non-blank lines of ls (all of them if
// n <= 0), top to bottom.
func lastNonBlank(ls []string, n int) string {
	if n <= 0 {
		return strings.Join(ls, "\n")
	}
	var picked []string
	for i := len(ls) - 1; i >= 0 && len(picked) < n; i-- {
		if !blank(ls[i]) {
			picked = append(picked, ls[i])
		}
	}
	for i, j := 0, len(picked)-1; i < j; i, j = i+1, j-1 {
		picked[i], picked[j] = picked[j], picked[i]
	}
	return strings.Join(picked, "\n")
}

func (v *view) bottom(n int) string {
	if s, ok := v.bottoms[n]; ok {
		return s
	}
	s := lastNonBlank(v.lines, n)
	if v.bottoms == nil {
		v.bottoms = map[int]string{}
	}
	v.bottoms[n] = s
	return s
}

func (v *view) above(n int) string {
	if s, ok := v.aboves[n]; ok {
		return s
	}
	s := ""
	if b := v.findBox(); b != nil {
		s = lastNonBlank(v.lines[:b.top], n)
	}
	if v.aboves == nil {
		v.aboves = map[int]string{}
	}
	v.aboves[n] = s
	return s
}

func (v *view) belowInput() string {
	if v.below == nil {
		s := ""
		if b := v.findBox(); b != nil {
			s = strings.Join(v.lines[b.end+1:], "\n")
		}
		v.below = &s
	}
	return *v.below
}

// findBox locates the pack's input box: the lowest line matching line
// (unless it matches not_line: then a dialog's option list took the box's
// place), with its top border right above it and its bottom border below
// when the pack defines them.
func (v *view) findBox() *box {
	if v.boxDone {
		return v.box
	}
	v.boxDone = true
	in := v.pack.input
	if in == nil {
		return nil
	}
	ls := v.lines
	row := -1
	for i := len(ls) - 1; i >= 0; i-- {
		if in.line.MatchString(ls[i]) {
			row = i
			break
		}
	}
	if row < 0 || (in.notLine != nil && in.notLine.MatchString(ls[row])) {
		return nil
	}
	if in.notBottom != nil && in.notBottom.MatchString(lastNonBlank(ls, 1)) {
		return nil
	}
	b := &box{top: row, prompt: row, end: row}
	if in.above != nil {
		if row == 0 || !in.above.MatchString(ls[row-1]) {
			return nil
		}
		b.top = row - 1
	}
	switch {
	case in.below != nil:
		j := row + 1
		for j < len(ls) && !in.below.MatchString(ls[j]) {
			j++
		}
		if j == len(ls) {
			return nil
		}
		for k := row + 1; k < j; k++ {
			b.rows = append(b.rows, k)
		}
		b.end = j
	case in.continuation != nil:
		for j := row + 1; j < len(ls) && !blank(ls[j]) && in.continuation.MatchString(ls[j]); j++ {
			b.rows = append(b.rows, j)
			b.end = j
		}
	}
	v.box = b
	return b
}

// draft is the unsent text in the input box: the prompt line's group 1
// and the continuation lines, without dim cells when the pack says so, ""
// when it is one of the pack's placeholders.
func (v *view) draft() string {
	b := v.findBox()
	if b == nil {
		return ""
	}
	in := v.pack.input
	first := v.row(b.prompt)
	m := in.line.FindStringSubmatch(first)
	if m == nil { // the row without its dim cells lost the prompt: use it whole
		m = in.line.FindStringSubmatch(v.lines[b.prompt])
	}
	parts := []string{strings.TrimRight(m[1], " \u00a0")}
	for _, r := range b.rows {
		s := v.row(r)
		if in.continuation != nil {
			if cm := in.continuation.FindStringSubmatch(s); cm != nil && len(cm) > 1 {
				s = cm[1]
			}
		}
		parts = append(parts, strings.TrimRight(s, " \u00a0"))
	}
	d := strings.TrimSpace(strings.Join(parts, "\n"))
	if d == "" {
		return ""
	}
	for _, ph := range in.placeholders {
		if ph.text.MatchString(d) && v.all(ph.conds) {
			return ""
		}
	}
	return d
}

// row returns line i, without its dim cells when the pack drops them and
// the snapshot's ANSI rendering is there to tell.
func (v *view) row(i int) string {
	if !v.pack.input.dropDim {
		return v.lines[i]
	}
	if !v.ansiOK {
		v.ansiOK = true
		if v.snap.ANSI != "" {
			v.ansi = strings.Split(v.snap.ANSI, "\r\n")
		}
	}
	if s, ok := undimmed(v.ansi, v.lines, i); ok {
		return s
	}
	return v.lines[i]
}
