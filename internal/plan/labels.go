package plan

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sup-tmux/sup/internal/safetext"
)

// MaxLabel bounds a name, workspace or role, in bytes: a label is a table
// cell, a tmux window name and a status-line word.
const MaxLabel = 128

// CheckLabel refuses a name, workspace or role that a terminal or tmux
// could read as more than text (specs/security.md, "Untrusted text"):
// control characters (newline and tab included), DEL, C1 and bidi
// controls, invalid UTF-8, or more than MaxLabel bytes. what names the
// input in the error ("--name", "frontmatter sup.role").
func CheckLabel(what, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s %s: not valid UTF-8; give printable text", what, safetext.Field(v))
	}
	if i := strings.IndexFunc(v, safetext.Unsafe); i >= 0 {
		r, _ := utf8.DecodeRuneInString(v[i:])
		return fmt.Errorf("%s \"%s\" holds the control character %U: give one line of printable text (letters, digits, spaces, punctuation)", what, safetext.Field(v), r)
	}
	if len(v) > MaxLabel {
		return fmt.Errorf("%s is %d bytes: give at most %d", what, len(v), MaxLabel)
	}
	return nil
}

// SafeLabel is v with every character CheckLabel refuses replaced by _
// and cut to MaxLabel bytes: for a name sup derives from a document's
// file name, which the user did not type as a label.
func SafeLabel(v string) string {
	v = strings.ToValidUTF8(v, "_")
	v = strings.Map(func(r rune) rune {
		if safetext.Unsafe(r) {
			return '_'
		}
		return r
	}, v)
	if len(v) > MaxLabel {
		v = strings.ToValidUTF8(v[:MaxLabel], "")
	}
	return v
}
