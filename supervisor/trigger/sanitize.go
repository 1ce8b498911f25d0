package trigger

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sup-tmux/sup/internal/safetext"
)

// Sanitize makes a prompt safe to paste: every rune internal/safetext
// calls unsafe on a terminal goes — C0 controls (CR included, so a pasted
// line never submits), ESC, DEL, the C1 controls (U+0080–U+009F), the bidi
// and isolate controls (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029) —
// except \n and \t, which a prompt legitimately holds; invalid UTF-8
// becomes U+FFFD. Nothing left can end a bracketed paste early, drive the
// terminal or reorder what the agent and the human read. It never shortens
// the text otherwise; size limits are the caller's (CheckSize).
func Sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		s = s[n:]
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case safetext.Unsafe(r):
			// dropped: a control
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CheckSize refuses a prompt longer than max bytes: a cut prompt could
// change its meaning, so the caller must split it instead.
func CheckSize(prompt string, max int) error {
	if len(prompt) > max {
		return fmt.Errorf("prompt is %d bytes; the limit is %d (trigger.max_prompt_bytes): send it in parts", len(prompt), max)
	}
	return nil
}

// maxIDLen bounds ids: they go into the envelope's first line and the audit.
const maxIDLen = 128

// SanitizeID keeps only [A-Za-z0-9._:-] of an id (trigger, thread or
// reason), at most 128 bytes, so it cannot break the envelope's header.
func SanitizeID(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < maxIDLen; i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Envelope wraps a sanitised prompt as specs/triggers.md ("Sanitising
// and the envelope") describes; the
// supervisor pastes it whole and submits it once.
func Envelope(id, thread, reason, prompt string) string {
	head := "[BRIDGE_TRIGGER id=" + SanitizeID(id) + " thread=" + SanitizeID(thread)
	if r := SanitizeID(reason); r != "" {
		head += " reason=" + r
	}
	return head + "]\n" + prompt + "\n[/BRIDGE_TRIGGER]"
}

// Hash is the audit's fingerprint of a prompt (sha256, hex): enough to match
// repeats without keeping the text.
func Hash(prompt string) string {
	sum := sha256.Sum256([]byte(prompt))
	return hex.EncodeToString(sum[:])
}
