package classify

import (
	"regexp"
	"strings"

	"github.com/sup-tmux/sup/supervisor/screen"
)

// MatchedLines returns what rule's positive text conditions matched on
// snap, one entry per match ("title: …" for the title, "agent_state: …"
// for OSC 7501), for `sup explain`: the evidence a pack author needs to
// fix a misdetection. nil when the pack has no such rule.
func (p *Pack) MatchedLines(snap screen.Snapshot, rule string) []string {
	if p == nil {
		return nil
	}
	v := &view{snap: &snap, pack: p, lines: snap.Lines}
	if v.lines == nil && snap.Text != "" {
		v.lines = strings.Split(snap.Text, "\n")
	}
	var out []string
	for i := range p.rules {
		r := &p.rules[i]
		if r.Name != rule {
			continue
		}
		for j := range r.conds {
			c := &r.conds[j]
			if c.neg || c.re == nil {
				continue
			}
			s, prefix, ok := v.region(c)
			if !ok {
				continue
			}
			if prefix != "" {
				if c.re.MatchString(s) {
					out = append(out, prefix+s)
				}
				continue
			}
			out = append(out, matchedLines(c.re, s)...)
		}
	}
	return out
}

// matchedLines returns the whole lines of s that re's first three matches
// touch.
func matchedLines(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range re.FindAllStringIndex(s, 3) {
		start := strings.LastIndexByte(s[:m[0]], '\n') + 1
		end := m[1]
		if end == m[0] || end > 0 && s[end-1] != '\n' {
			if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
				end += i
			} else {
				end = len(s)
			}
		}
		for _, line := range strings.Split(s[start:end], "\n") {
			if line = strings.TrimRight(line, " "); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}
