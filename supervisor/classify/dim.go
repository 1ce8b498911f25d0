package classify

import (
	"strings"
	"unicode/utf8"
)

// undimmed returns line i of the screen without its dim cells, read from
// the snapshot's ANSI rendering (screen.Screen.ANSI: one row per screen
// row, joined by CRLF, every SGR a full set from a reset). Agents draw
// placeholders and completion suggestions dim (SGR 2) in their input box,
// which a plain-text capture cannot tell from typed text. ok is false when
// there is no ANSI row to read or it disagrees with lines[i].
//
// The cell under the agent's own cursor is drawn in reverse video, not dim
// (Claude's placeholder reads `❯ ` + reverse `O` + dim `nce fixed, …`): a
// reverse, non-dim cell followed by a dim one counts as dim.
func undimmed(ansi, lines []string, i int) (string, bool) {
	if len(ansi) == 0 {
		return "", false
	}
	if i >= len(ansi) { // the blank rows at the bottom are left out of ANSI
		return lines[i], true
	}
	plain, undim := undimRow(ansi[i])
	if strings.TrimRight(plain, " ") != strings.TrimRight(lines[i], " ") {
		return "", false
	}
	return undim, true
}

type styledRune struct {
	r        rune
	dim, rev bool
}

func undimRow(row string) (plain, undim string) {
	var cells []styledRune
	var dim, rev bool
	for i := 0; i < len(row); {
		if row[i] == 0x1b && i+1 < len(row) && row[i+1] == '[' {
			j := i + 2
			for j < len(row) && (row[j] < 0x40 || row[j] > 0x7e) {
				j++
			}
			if j < len(row) && row[j] == 'm' {
				dim, rev = sgr(row[i+2:j], dim, rev)
			}
			i = j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(row[i:])
		cells = append(cells, styledRune{r, dim, rev})
		i += size
	}
	var p, u strings.Builder
	for k, c := range cells {
		p.WriteRune(c.r)
		d := c.dim || (c.rev && k+1 < len(cells) && cells[k+1].dim)
		if !d {
			u.WriteRune(c.r)
		}
	}
	return p.String(), u.String()
}

// sgr applies one SGR parameter list to the dim and reverse flags.
func sgr(params string, dim, rev bool) (bool, bool) {
	if params == "" {
		return false, false
	}
	ps := strings.Split(params, ";")
	for k := 0; k < len(ps); k++ {
		switch ps[k] {
		case "0", "":
			dim, rev = false, false
		case "2":
			dim = true
		case "22":
			dim = false
		case "7":
			rev = true
		case "27":
			rev = false
		case "38", "48", "58":
			if k+1 < len(ps) {
				switch ps[k+1] {
				case "5":
					k += 2
				case "2":
					k += 4
				}
			}
		}
	}
	return dim, rev
}
