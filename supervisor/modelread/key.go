package modelread

import (
	"fmt"
	"strings"
)

// KeyTokens bounds a key: a dialog is picked with a key or two (a digit; an
// arrow and Enter), never a command line, so a prompt-injected screen
// cannot have the model propose one for a human to type unawares.
const KeyTokens = 4

// namedKeys are the key names a reply may use, with the bytes a terminal
// sends for them (normal cursor mode).
var namedKeys = map[string]string{
	"enter": "\r", "return": "\r", "esc": "\x1b", "escape": "\x1b", "tab": "\t", "space": " ",
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"backspace": "\x7f",
}

// KeyNames lists the named keys, for the prompt and errors.
const KeyNames = "Enter, Esc, Tab, Space, Up, Down, Left, Right, Backspace"

// ParseKey turns a reply's key — up to KeyTokens tokens separated by
// spaces, each one printable ASCII character or a named key
// (case-insensitive) — into the bytes to type.
func ParseKey(key string) (string, error) {
	toks := strings.Fields(key)
	if len(toks) == 0 {
		return "", fmt.Errorf("empty key: give a character or one of %s", KeyNames)
	}
	if len(toks) > KeyTokens {
		return "", fmt.Errorf("key %q: %d keys, at most %d (a dialog is picked with a key or two)", clip(key, 40), len(toks), KeyTokens)
	}
	var b strings.Builder
	for _, t := range toks {
		if len(t) == 1 && t[0] > ' ' && t[0] < 0x7f {
			b.WriteString(t)
			continue
		}
		seq, ok := namedKeys[strings.ToLower(t)]
		if !ok {
			return "", fmt.Errorf("key %q: %q is neither one printable character nor one of %s", clip(key, 40), clip(t, 20), KeyNames)
		}
		b.WriteString(seq)
	}
	return b.String(), nil
}
