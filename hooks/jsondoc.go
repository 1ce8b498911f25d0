//go:build linux

package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// jnode is a JSON value that keeps what a map would lose: the order of an
// object's keys (and duplicates), and each scalar exactly as written
// (numbers, escapes). The settings files sup edits are the user's; only
// the parts sup changes may come out different.
type jnode struct {
	kind byte     // '{' object, '[' array, 0 scalar
	keys []string // object: decoded keys, parallel to vals
	raw  [][]byte // object: the keys as written
	vals []*jnode // object values or array elements
	text []byte   // scalar: as written
	// orig is the node as written in the file (nil for a new node), and
	// dirty marks a node sup changed. encode writes an unchanged node as
	// orig, byte for byte, so only the containers on the way to sup's
	// entries are laid out anew.
	orig  []byte
	dirty bool
}

func jobject() *jnode { return &jnode{kind: '{'} }
func jarray() *jnode  { return &jnode{kind: '['} }

func jstring(s string) *jnode {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return &jnode{text: bytes.TrimRight(b.Bytes(), "\n")}
}

// get returns the value of key k of an object: the last one when k is
// there twice, as JSON.parse in the agents (JavaScript) reads it.
func (n *jnode) get(k string) *jnode {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == k {
			return n.vals[i]
		}
	}
	return nil
}

// set appends key k with value v to an object.
func (n *jnode) set(k string, v *jnode) {
	n.dirty = true
	n.keys = append(n.keys, k)
	n.raw = append(n.raw, jstring(k).text)
	n.vals = append(n.vals, v)
}

// str is a scalar's string value; ok is false when it is not a string.
func (n *jnode) str() (s string, ok bool) {
	if n == nil || n.kind != 0 || len(n.text) == 0 || n.text[0] != '"' {
		return "", false
	}
	if json.Unmarshal(n.text, &s) != nil {
		return "", false
	}
	return s, true
}

// kindName names a node's JSON type for error messages.
func (n *jnode) kindName() string {
	switch {
	case n.kind == '{':
		return "an object"
	case n.kind == '[':
		return "an array"
	case len(n.text) > 0 && n.text[0] == '"':
		return "a string"
	case string(n.text) == "null":
		return "null"
	case string(n.text) == "true" || string(n.text) == "false":
		return "a boolean"
	}
	return "a number"
}

// SyntaxError is a settings file that is not what sup can edit: bad JSON
// or TOML, or a value of the wrong type where sup's entries go. Line and
// Col are 1-based; 0 when unknown.
type SyntaxError struct {
	Path      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// parseJSON reads a settings file's JSON. An empty (or blank) file is an
// empty object. Errors are *SyntaxError with the line and column.
func parseJSON(path string, data []byte) (*jnode, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return jobject(), nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		e := &SyntaxError{Path: path, Msg: "malformed JSON: " + err.Error()}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			e.Line, e.Col = lineCol(data, int(se.Offset))
			if bytes.Contains(data, []byte("//")) || bytes.Contains(data, []byte("/*")) {
				if json.Valid(stripJSONComments(data)) {
					e.Msg = "the file has comments (JSON with comments), which sup cannot keep when it rewrites the file; remove them and run again, or add sup's hooks by hand (specs/hooks.md)"
				}
			}
		}
		return nil, e
	}
	p := &jparser{data: data}
	p.ws()
	n := p.value()
	if n.kind != '{' {
		return nil, &SyntaxError{Path: path, Line: 1, Msg: "the top level is " + n.kindName() + ", not an object"}
	}
	return n, nil
}

// jparser walks JSON already checked valid, keeping every byte as written.
type jparser struct {
	data []byte
	i    int
}

func (p *jparser) ws() {
	for p.i < len(p.data) && strings.IndexByte(" \t\r\n", p.data[p.i]) >= 0 {
		p.i++
	}
}

// separator skips the space after a member or element, and its comma with
// the space after that.
func (p *jparser) separator() {
	p.ws()
	if p.data[p.i] == ',' {
		p.i++
		p.ws()
	}
}

func (p *jparser) value() *jnode {
	start := p.i
	n := p.value1()
	n.orig = p.data[start:p.i]
	return n
}

func (p *jparser) value1() *jnode {
	switch p.data[p.i] {
	case '{':
		n := jobject()
		p.i++
		p.ws()
		for p.data[p.i] != '}' {
			raw := p.stringText()
			var k string
			json.Unmarshal(raw, &k)
			p.ws()
			p.i++ // ':'
			p.ws()
			n.keys = append(n.keys, k)
			n.raw = append(n.raw, raw)
			n.vals = append(n.vals, p.value())
			p.separator()
		}
		p.i++
		return n
	case '[':
		n := jarray()
		p.i++
		p.ws()
		for p.data[p.i] != ']' {
			n.vals = append(n.vals, p.value())
			p.separator()
		}
		p.i++
		return n
	case '"':
		return &jnode{text: p.stringText()}
	}
	start := p.i
	for p.i < len(p.data) && strings.IndexByte(",]} \t\r\n", p.data[p.i]) < 0 {
		p.i++
	}
	return &jnode{text: p.data[start:p.i]}
}

func (p *jparser) stringText() []byte {
	start := p.i
	for p.i++; p.data[p.i] != '"'; p.i++ {
		if p.data[p.i] == '\\' {
			p.i++
		}
	}
	p.i++
	return p.data[start:p.i]
}

// encode writes n as JSON indented by indent per level, the layout of
// JSON.stringify(v, null, indent) that the agents write themselves, with a
// final newline.
func (n *jnode) encode(indent string) []byte {
	n.settle()
	var b bytes.Buffer
	n.write(&b, indent, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

// settle marks dirty every node with a dirty descendant, and reports
// whether n is dirty.
func (n *jnode) settle() bool {
	if n.orig == nil {
		n.dirty = true
	}
	for _, v := range n.vals {
		if v.settle() {
			n.dirty = true
		}
	}
	return n.dirty
}

func (n *jnode) write(b *bytes.Buffer, indent string, depth int) {
	if !n.dirty && n.orig != nil {
		b.Write(n.orig)
		return
	}
	switch n.kind {
	case 0:
		b.Write(n.text)
		return
	case '{', '[':
		closer := byte('}')
		if n.kind == '[' {
			closer = ']'
		}
		b.WriteByte(n.kind)
		if len(n.vals) == 0 {
			b.WriteByte(closer)
			return
		}
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(indent, depth+1))
			if n.kind == '{' {
				b.Write(n.raw[i])
				b.WriteString(": ")
			}
			v.write(b, indent, depth+1)
		}
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(indent, depth))
		b.WriteByte(closer)
	}
}

// detectIndent finds the indentation unit a JSON file uses: the leading
// blanks of its first indented line. Two spaces when there is none.
func detectIndent(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == len(line) || len(trimmed) == 0 {
			continue
		}
		return string(line[:len(line)-len(trimmed)])
	}
	return "  "
}

// stripJSONComments blanks // and /* */ comments outside strings, to tell
// a JSON-with-comments file (Gemini CLI accepts them) from a broken one.
func stripJSONComments(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			if i < len(data) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
			out = append(out, ' ')
		default:
			out = append(out, c)
		}
	}
	return out
}
