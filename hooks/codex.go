//go:build linux

package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// codexSpec is what sup installs in Codex's hooks.json (Claude Code's
// layout): the events Codex 0.169.0 was seen firing (specs/testing.md,
// "Codex" / "Hooks"). No matcher: Codex's matcher is a pattern on the tool
// name, and none matches every tool.
var codexSpec = jsonSpec{
	agent: Codex,
	events: []eventSpec{
		{name: "SessionStart"},
		{name: "UserPromptSubmit"},
		{name: "PreToolUse"},
		{name: "PermissionRequest"},
		{name: "PostToolUse"},
		{name: "Stop"},
	},
}

// NotifyConflictError is a config.toml whose notify runs another program.
// Codex runs a single notify program, so sup does not replace it unless
// told to (Options.Force).
type NotifyConflictError struct {
	Path    string
	Current string // the notify value as written
}

func (e *NotifyConflictError) Error() string {
	return fmt.Sprintf("%s already has notify = %s, another program; Codex runs only one notify "+
		"program, so sup leaves it alone and writes nothing: run again with --force to replace it with sup's "+
		"(or have your program also run `sup hook --agent codex <json>` with the JSON it gets)", e.Path, e.Current)
}

// notifyState is what config.toml's root notify holds.
type notifyState struct {
	present bool
	argv    []string // when it is an array of strings
	text    string   // the value as written, for messages
}

func (s notifyState) ours() bool { return isSupArgv(s.argv) }

// readNotify parses config.toml and returns its root notify. A parse error
// is a *SyntaxError with the line and column.
func readNotify(path string, data []byte) (notifyState, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		e := &SyntaxError{Path: path, Msg: "malformed TOML: " + err.Error()}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			e.Line, e.Col = de.Position()
			e.Msg = "malformed TOML: " + de.Error()
		}
		return notifyState{}, e
	}
	v, ok := doc["notify"]
	if !ok {
		return notifyState{}, nil
	}
	st := notifyState{present: true}
	if kv, _, err := findNotify(data); err == nil && kv != nil {
		st.text = string(data[kv.Offset : kv.Offset+kv.Length])
		if i := strings.Index(st.text, "="); i >= 0 {
			st.text = strings.TrimSpace(st.text[i+1:])
		}
	} else {
		st.text = fmt.Sprint(v)
	}
	if arr, ok := v.([]any); ok {
		argv := make([]string, 0, len(arr))
		for _, x := range arr {
			s, ok := x.(string)
			if !ok {
				return st, nil
			}
			argv = append(argv, s)
		}
		st.argv = argv
	}
	return st, nil
}

// findNotify locates, in config.toml, the root `notify = …` expression
// (kv, nil when absent) and where a new root key goes (insertAt): after
// the last root key-value line, else before the first table and the
// comment lines right above it, else at the end.
func findNotify(data []byte) (kv *unstable.Range, insertAt int, err error) {
	p := unstable.Parser{KeepComments: true}
	p.Reset(data)
	lastRootEnd := -1
	firstTable := -1
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.KeyValue:
			if firstTable >= 0 {
				continue
			}
			var parts []string
			for it := n.Key(); it.Next(); {
				parts = append(parts, string(it.Node().Data))
			}
			if len(parts) == 1 && parts[0] == "notify" {
				r := n.Raw
				kv = &r
			}
			lastRootEnd = int(n.Raw.Offset + n.Raw.Length)
		case unstable.Table, unstable.ArrayTable:
			if firstTable < 0 {
				// A table node has no range of its own; its key's
				// does, and the header starts that line.
				for it := n.Key(); it.Next(); {
					firstTable = lineStart(data, int(it.Node().Raw.Offset))
					break
				}
			}
		}
	}
	if err := p.Error(); err != nil {
		return nil, 0, err
	}
	switch {
	case lastRootEnd >= 0:
		i := bytes.IndexByte(data[lastRootEnd:], '\n')
		if i < 0 {
			return kv, len(data), nil
		}
		return kv, lastRootEnd + i + 1, nil
	case firstTable >= 0:
		at := firstTable
		for at > 0 {
			prev := lineStart(data, at-1)
			if !bytes.HasPrefix(bytes.TrimLeft(data[prev:at], " \t"), []byte("#")) {
				break
			}
			at = prev
		}
		return kv, at, nil
	}
	return kv, len(data), nil
}

func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

// setNotify returns config.toml with its root notify set to argv: the
// existing expression replaced in place, or a new line where a root key
// goes. Everything else stays byte for byte.
func setNotify(data []byte, argv []string) ([]byte, error) {
	kv, at, err := findNotify(data)
	if err != nil {
		return nil, err
	}
	line := "notify = " + tomlArray(argv)
	var out bytes.Buffer
	if kv != nil {
		out.Write(data[:kv.Offset])
		out.WriteString(line)
		out.Write(data[kv.Offset+kv.Length:])
		return out.Bytes(), nil
	}
	out.Write(data[:at])
	if at > 0 && data[at-1] != '\n' {
		out.WriteByte('\n')
	}
	out.WriteString(line)
	out.WriteByte('\n')
	rest := data[at:]
	if len(rest) > 0 && (rest[0] == '[' || rest[0] == '#') {
		// A table header or a comment (most often about the table below
		// it) follows: a blank line between, as in most configs.
		out.WriteByte('\n')
	}
	out.Write(rest)
	return out.Bytes(), nil
}

// tomlArray writes argv as a TOML array of basic strings.
func tomlArray(argv []string) string {
	parts := make([]string, len(argv))
	for i, s := range argv {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
