package supervisor

import (
	"strings"
	"unicode/utf8"
)

// StripANSI removes terminal escape sequences (CSI, OSC, DCS and friends,
// two-byte ESC sequences) and control characters other than newline and tab,
// turning carriage returns into newlines. It is the plain-text view of output
// until a real screen model exists.
func StripANSI(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b && i+1 < len(b):
			i = skipEscape(b, i+1)
			continue
		case c == 0x1b:
			i++
			continue
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
				continue
			}
			sb.WriteByte('\n')
		case c == '\n' || c == '\t':
			sb.WriteByte(c)
		case c < 0x20 || c == 0x7f:
		case c < utf8.RuneSelf:
			sb.WriteByte(c)
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r != utf8.RuneError && !(r >= 0x80 && r < 0xa0) {
				sb.WriteRune(r)
			}
			i += n
			continue
		}
		i++
	}
	return sb.String()
}

// skipEscape returns the index after the escape sequence whose introducer
// follows ESC at b[i].
func skipEscape(b []byte, i int) int {
	switch b[i] {
	case '[': // CSI: parameters and intermediates, then a final byte 0x40–0x7e.
		for i++; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return i + 1
			}
		}
		return i
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: until BEL or ST.
		for i++; i < len(b); i++ {
			if b[i] == 0x07 {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
		}
		return i
	case 0x1b: // ESC ESC: the first was lone; the second starts afresh.
		return i
	case '(', ')', '*', '+', '#', '%': // charset and line-size selections take one more byte.
		return min(i+2, len(b))
	}
	return i + 1
}
