package safetext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxField caps a field, in bytes of the input: wider than any table
// column or status line, far below a line that floods a screen.
const MaxField = 1024

// Field is s made safe for one line of a terminal, at most MaxField bytes
// of it (see the package's invariants).
func Field(s string) string { return clean(s, false, MaxField) }

// Text is s made safe for a terminal as a block of lines: newlines stay,
// everything else is as Field, without the cap (the caller bounds a
// block).
func Text(s string) string { return clean(s, true, -1) }

// Fields applies Field to each of ss in place and returns it.
func Fields(ss []string) []string {
	for i, s := range ss {
		ss[i] = Field(s)
	}
	return ss
}

// Unsafe reports whether r is a rune Field escapes. It is sup's one set of
// runes unsafe on a terminal: Field, Text and EscapeJSON escape them, and
// supervisor/trigger.Sanitize removes them (but \n and \t) from a prompt
// before it is pasted.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// safeRun is the length of s's prefix that needs no escape, scanning at
// most limit bytes (-1: all).
func safeRun(s string, keepNL bool, limit int) int {
	n := len(s)
	if limit >= 0 && n > limit {
		n = limit
	}
	for i := 0; i < n; {
		c := s[i]
		if c >= 0x20 && c < 0x7f || keepNL && (c == '\n' || crlf(s, i)) {
			i++
			continue
		}
		if c < 0x80 {
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || Unsafe(r) || i+size > n {
			// A rune the limit cuts is not part of the safe prefix:
			// the cut falls between runes, never inside one.
			return i
		}
		i += size
	}
	return n
}

// crlf reports whether s[i] is the CR of a CR LF: where lines are kept
// (Text) a line ending, which moves to the next line's start and cannot
// overwrite anything (sup screen --ansi draws its rows so); a CR alone
// would let the rest of a line overwrite what the human reads.
func crlf(s string, i int) bool { return s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' }

func clean(s string, keepNL bool, limit int) string {
	i := safeRun(s, keepNL, limit)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		if limit >= 0 && i >= limit {
			b.WriteString("…")
			return b.String()
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNL, keepNL && crlf(s, i):
			b.WriteByte(s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && Unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Marshal is json.Marshal (HTML left alone) with the escapes of JSON.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return EscapeJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// Encoder writes JSON values, one per Encode, like json.Encoder, with the
// escapes of JSON (the package's invariants).
type Encoder struct {
	w      io.Writer
	indent string
	html   bool
}

// NewEncoder returns an encoder writing to w. It does not escape HTML.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w} }

// SetIndent indents each level with indent (no prefix).
func (e *Encoder) SetIndent(indent string) { e.indent = indent }

// Encode writes v and a newline.
func (e *Encoder) Encode(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if e.indent != "" {
		enc.SetIndent("", e.indent)
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := e.w.Write(EscapeJSON(buf.Bytes()))
	return err
}

// EscapeJSON rewrites the raw C1, DEL and bidi runes of encoding/json's
// output as \uXXXX. Outside strings JSON holds only ASCII, so every such
// rune is inside a string, where the escape means the same rune.
func EscapeJSON(js []byte) []byte {
	i := 0
	for i < len(js) {
		c := js[i]
		if c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(js[i:])
		if c == 0x7f || Unsafe(r) {
			break
		}
		i += size
	}
	if i == len(js) {
		return js
	}
	out := make([]byte, 0, len(js)+16)
	out = append(out, js[:i]...)
	for i < len(js) {
		c := js[i]
		if c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(js[i:])
		if c == 0x7f {
			r = 0x7f
		}
		if c == 0x7f || Unsafe(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, js[i:i+size]...)
		}
		i += size
	}
	return out
}

// sgr is a Select Graphic Rendition sequence: colours and attributes only.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TextSGR is Text keeping SGR sequences (ESC [ … m: colours and
// attributes, which cannot move the cursor, write the clipboard or rename
// a window): for a screen rendered with its colours (sup screen --ansi).
func TextSGR(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range sgr.FindAllStringIndex(s, -1) {
		b.WriteString(Text(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(Text(s[last:]))
	return b.String()
}
