package screen

import (
	"fmt"
	"strings"
)

// acsText turns `capture-pane -p -e` output into plain text with DEC
// line-drawing cells (which plain -p prints as "lqqk") mapped to the
// Unicode box characters the user sees, as Screen keeps them: -e marks
// those cells with SO/SI. Other escape sequences are dropped.
func acsText(s string) string {
	var b strings.Builder
	acs := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
		case c == 0x1b && i+1 < len(s) && s[i+1] == ']':
			for i < len(s) && s[i] != 0x07 && !(s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\') {
				i++
			}
			if i < len(s) && s[i] == 0x1b {
				i++
			}
		case c == 0x0e:
			acs = true
		case c == 0x0f:
			acs = false
		case acs && c >= 0x5f && c <= 0x7e:
			b.WriteRune(decGraphics[c-0x5f])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// trimText normalises a capture like Screen.Text: trailing spaces off
// every line, trailing empty lines off the end.
func trimText(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " ")
	}
	n := len(ls)
	for n > 0 && ls[n-1] == "" {
		n--
	}
	return strings.Join(ls[:n], "\n")
}

// diffText shows the rows that differ.
func diffText(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "row %2d tmux: %q\nrow %2d ours: %q\n", i, wl, i, gl)
		}
	}
	return b.String()
}
