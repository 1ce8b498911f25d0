package classify

import (
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
			var s, prefix string
			switch c.reg {
			case regScreen:
				s = v.screenText()
			case regBottom:
				s = v.bottom(c.n)
			case regAbove:
				s = v.above(c.n)
			case regBelow:
				s = v.belowInput()
			case regTitle:
				s, prefix = v.snap.Signals.Title, "title: "
			case regAgentState:
				s, prefix = v.snap.Signals.AgentState, "agent_state: "
			default:
				continue
			}
			for _, m := range c.re.FindAllString(s, 3) {
				for _, line := range strings.Split(m, "\n") {
					if line = strings.TrimRight(line, " "); line != "" {
						out = append(out, prefix+line)
					}
				}
			}
		}
	}
	return out
}
