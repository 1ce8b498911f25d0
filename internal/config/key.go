package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// namedKeys are the key names a reply may use, with the bytes a terminal
// sends for them (normal cursor mode).
var namedKeys = map[string]string{
	"enter": "\r", "return": "\r", "esc": "\x1b", "escape": "\x1b", "tab": "\t", "space": " ",
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"backspace": "\x7f",
}

// KeyNames lists the named keys, for the prompt and errors.
const KeyNames = "Enter, Esc, Tab, Space, Up, Down, Left, Right, Backspace"

// ParseKey turns a reply's key into the bytes to type. A key is what a
// human presses once on that screen to pick the option: one printable
// ASCII character ("y", "2") or one named key (case-insensitive, one of
// KeyNames). Anything else — two keys ("Up Enter"), a word, a command
// line, a control character — is refused with the reason: a
// prompt-injected screen cannot have the model propose a key sequence
// that types more than the one keypress a human sees it as
// (specs/detection.md, "The model reader").
func ParseKey(key string) (string, error) {
	k := strings.TrimSpace(key)
	switch {
	case k == "":
		return "", fmt.Errorf("empty key: give one printable character or one of %s", KeyNames)
	case len(k) == 1 && k[0] > ' ' && k[0] < 0x7f:
		return k, nil
	}
	if seq, ok := namedKeys[strings.ToLower(k)]; ok {
		return seq, nil
	}
	if len(strings.Fields(k)) > 1 {
		return "", fmt.Errorf("key %q: %d keys; an option is picked with one key (one printable character or one of %s)",
			clip(key, 40), len(strings.Fields(k)), KeyNames)
	}
	if r, _ := utf8.DecodeRuneInString(k); utf8.RuneCountInString(k) == 1 && r >= 0x80 {
		return "", fmt.Errorf("key %q: not an ASCII character; give one printable ASCII character or one of %s", clip(key, 40), KeyNames)
	}
	return "", fmt.Errorf("key %q: neither one printable character nor one of %s", clip(key, 40), KeyNames)
}
