package classify

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// optionSpec is the `options:` condition: a selection list, the shape of
// every dialog whatever it asks (specs/detection.md, "Structural rules").
type optionSpec struct {
	selected *regexp.Regexp // the selected option's line; group 1 = its selection mark
	top      *regexp.Regexp // the line just above the dialog (its top border); nil: the screen's top
	content  *regexp.Regexp // group 1 = a line's text inside the dialog's frame; nil: the whole line
}

// optionList is a selection list found on a screen; rows index lines.
type optionList struct {
	first int    // the list's first option row
	title string // the dialog's first non-blank line above the list, trimmed
}

type rawOptions struct {
	Selected string `yaml:"selected"`
	Top      string `yaml:"top"`
	Content  string `yaml:"content"`
}

func compileOptions(n *yaml.Node) (*optionSpec, error) {
	if err := checkKeys(n, "options", rawOptions{}); err != nil {
		return nil, err
	}
	var raw rawOptions
	if err := n.Decode(&raw); err != nil {
		return nil, fmt.Errorf("options: %s", yamlErr(err))
	}
	if raw.Selected == "" {
		return nil, errors.New("options: selected is required: the regex of the selected option's line, group 1 = its selection mark")
	}
	o := &optionSpec{}
	var err error
	if o.selected, err = compileRegex("options: selected", raw.Selected); err != nil {
		return nil, err
	}
	if o.selected.NumSubexp() < 1 {
		return nil, fmt.Errorf("options: selected %q: needs a capture group around the selection mark", raw.Selected)
	}
	if raw.Top != "" {
		if o.top, err = compileRegex("options: top", raw.Top); err != nil {
			return nil, err
		}
	}
	if raw.Content != "" {
		if o.content, err = compileRegex("options: content", raw.Content); err != nil {
			return nil, err
		}
		if o.content.NumSubexp() < 1 {
			return nil, fmt.Errorf("options: content %q: needs a capture group for the text inside the frame", raw.Content)
		}
	}
	return o, nil
}

// findOptions returns the lowest selection list on the screen, nil if
// none: a line matching selected, and next to it (only its own wrapped
// lines, deeper-indented lines and single blank lines between) another
// option: the same line start, blanks where the selection mark (and the
// space after it) are, then text at the column of the selected option's
// text or of its first letter (Claude marks the current choice `❯ ✔ Auto`
// and aligns the others with `Auto`) — numbered if the selected one is. A
// lone marked line is no list (a transcript's prompt, a bullet).
func (o *optionSpec) findOptions(ls []string) *optionList {
	for i := len(ls) - 1; i >= 0; i-- {
		m := o.selected.FindStringSubmatchIndex(ls[i])
		if m == nil || m[2] < 0 || !strings.HasPrefix(ls[i][m[3]:], " ") {
			continue
		}
		text := strings.TrimLeft(ls[i][m[3]:], " ")
		col := list{prefix: ls[i][:m[2]], numbered: numberedOption.MatchString(text)}
		col.min = utf8.RuneCountInString(ls[i][:m[3]]) + 1
		col.max = col.min + utf8.RuneCountInString(ls[i][m[3]:]) - utf8.RuneCountInString(text) - 1
		if k := strings.IndexFunc(text, isAlnum); k > 0 {
			col.max += utf8.RuneCountInString(text[:k])
		}
		up, okUp := o.walk(ls, i, -1, col)
		_, okDown := o.walk(ls, i, +1, col)
		if !okUp && !okDown {
			continue
		}
		return &optionList{first: up, title: o.title(ls, up)}
	}
	return nil
}

// list is where a list's options start: after prefix, then blanks to a
// column in [min, max] (in runes from the line's start).
type list struct {
	prefix   string
	min, max int
	numbered bool
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// numberedOption starts an option's text in a numbered list.
var numberedOption = regexp.MustCompile(`^\d+\. `)

// walk goes from the selected row in direction dir over the list's rows
// and reports the farthest option row reached and whether any was found.
// In a numbered list an unnumbered line at the options' column ends it:
// it is the dialog's text (Codex indents both alike).
func (o *optionSpec) walk(ls []string, from, dir int, l list) (int, bool) {
	far, found, blanks := from, false, 0
	for j := from + dir; j >= 0 && j < len(ls); j += dir {
		line := ls[j]
		if o.blank(line) {
			if blanks++; blanks > 1 {
				return far, found
			}
			continue
		}
		blanks = 0
		if !strings.HasPrefix(line, l.prefix) {
			return far, found
		}
		rest := line[len(l.prefix):]
		text := strings.TrimLeft(rest, " ")
		col := utf8.RuneCountInString(l.prefix) + len(rest) - len(text)
		switch {
		case col < l.min:
			return far, found
		case col > l.max: // a wrapped line, deeper
		case l.numbered && !numberedOption.MatchString(text):
			return far, found
		default:
			far, found = j, true
		}
	}
	return far, found
}

// blank reports whether a line has no text inside the dialog's frame.
func (o *optionSpec) blank(line string) bool { return blank(o.text(line)) }

// text is a line's text inside the dialog's frame, trimmed.
func (o *optionSpec) text(line string) string {
	if o.content != nil {
		if m := o.content.FindStringSubmatch(line); m != nil {
			line = m[1]
		}
	}
	return strings.TrimSpace(line)
}

// title is the dialog's first non-blank line above the list: the dialog
// starts below the nearest line above the list matching top. Without a
// top match (no border, or none given) it is the first line of the
// paragraph nearest above the list: the screen's first line is likely a
// banner.
func (o *optionSpec) title(ls []string, first int) string {
	if o.top != nil {
		for j := first - 1; j >= 0; j-- {
			if o.top.MatchString(ls[j]) {
				for k := j + 1; k < first; k++ {
					if t := o.text(ls[k]); t != "" {
						return t
					}
				}
				return ""
			}
		}
	}
	j := first - 1
	for j >= 0 && o.blank(ls[j]) {
		j--
	}
	for j > 0 && !o.blank(ls[j-1]) {
		j--
	}
	if j < 0 {
		return ""
	}
	return o.text(ls[j])
}
