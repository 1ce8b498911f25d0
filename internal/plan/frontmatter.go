package plan

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Frontmatter is the document's own `sup:` map. Other frontmatter keys belong
// to other tools and are ignored.
type Frontmatter struct {
	CWD            string
	Profile        string
	Command        []string
	Env            map[string]string
	EnvOrder       []string // Env's keys in document order, so expansion and logs are deterministic
	EnvPassthrough []string
	Name           string
	Workspace      string
	Role           string
	CWDLine        int // the document line of sup.cwd, for errors
}

// frontmatterKeys are the keys sup reads inside `sup:`; any other key there is
// a typo worth stopping for, since a misspelt `cwd` would silently move the agent.
var frontmatterKeys = []string{"command", "cwd", "env", "env_passthrough", "name", "profile", "role", "workspace"}

// ReadFrontmatter reads path and parses the `sup` key of its YAML frontmatter.
// A document without frontmatter, or without a `sup` key, yields a zero value.
func ReadFrontmatter(path string) (Frontmatter, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Frontmatter{}, fmt.Errorf("read document: %w", err)
	}
	return ParseFrontmatter(path, data)
}

// ParseFrontmatter parses data (the document's bytes); path only labels errors
// as "path:line: message".
func ParseFrontmatter(path string, data []byte) (Frontmatter, error) {
	block, ok, err := frontmatterBlock(data)
	if err != nil {
		return Frontmatter{}, fmt.Errorf("%s:1: %w", path, err)
	}
	if !ok {
		return Frontmatter{}, nil
	}
	// The block starts on the document's line 2, after the opening ---.
	const lineOffset = 1
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line+lineOffset, fmt.Sprintf(format, args...))
	}
	// YAML counts a lone CR as a line break, editors and our line numbers
	// do not: refuse it rather than name lines that do not exist (found by
	// FuzzFrontmatter).
	if i := loneCR(block); i >= 0 {
		return Frontmatter{}, fail(bytes.Count(block[:i], []byte("\n"))+1,
			"a carriage return (\\r) not followed by a newline; lines end with \\n or \\r\\n")
	}
	var root yaml.Node
	if err := yaml.Unmarshal(block, &root); err != nil {
		return Frontmatter{}, yamlError(path, lineOffset, block, err)
	}
	if len(root.Content) == 0 {
		return Frontmatter{}, nil
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return Frontmatter{}, fail(top.Line, "frontmatter must be a YAML map, got %s", kindName(top))
	}
	supNode := mapValue(top, "sup")
	if supNode == nil {
		return Frontmatter{}, nil
	}
	if supNode.Kind != yaml.MappingNode {
		return Frontmatter{}, fail(supNode.Line, "sup: must be a map with keys %s, got %s", strings.Join(frontmatterKeys, ", "), kindName(supNode))
	}
	var fm Frontmatter
	seen := map[string]bool{}
	for i := 0; i+1 < len(supNode.Content); i += 2 {
		k, v := supNode.Content[i], supNode.Content[i+1]
		if seen[k.Value] {
			return Frontmatter{}, fail(k.Line, "sup.%s: given twice", k.Value)
		}
		seen[k.Value] = true
		var err error
		line := v.Line
		switch k.Value {
		case "cwd":
			fm.CWD, err = scalarString(v)
			fm.CWDLine = v.Line + lineOffset
		case "profile":
			fm.Profile, err = scalarString(v)
		case "name":
			fm.Name, err = scalarString(v)
		case "workspace":
			fm.Workspace, err = scalarString(v)
		case "role":
			fm.Role, err = scalarString(v)
		case "command":
			fm.Command, line, err = stringList(v)
			if err == nil && len(fm.Command) == 0 {
				err = fmt.Errorf("must not be empty")
			}
		case "env_passthrough":
			fm.EnvPassthrough, line, err = stringList(v)
		case "env":
			fm.Env, fm.EnvOrder, line, err = stringMap(v)
		default:
			return Frontmatter{}, fail(k.Line, "sup.%s: unknown key (valid: %s)", k.Value, strings.Join(frontmatterKeys, ", "))
		}
		if err != nil {
			return Frontmatter{}, fail(line, "sup.%s: %v", k.Value, err)
		}
	}
	return fm, nil
}

// frontmatterBlock returns the YAML between a leading "---" line and the next
// "---" (or "...") line. An opening without a closing line is an error: the
// author meant frontmatter and sup must not guess where it ends.
func frontmatterBlock(data []byte) ([]byte, bool, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, false, nil
	}
	offset := 0
	for len(rest[offset:]) > 0 {
		line, _, found := bytes.Cut(rest[offset:], []byte("\n"))
		trimmed := string(bytes.TrimRight(line, " \t\r"))
		if trimmed == "---" || trimmed == "..." {
			return rest[:offset], true, nil
		}
		if !found {
			break
		}
		offset += len(line) + 1
	}
	return nil, false, fmt.Errorf("frontmatter opened with --- is never closed by a --- line")
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func scalarString(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", fmt.Errorf("must be a string, got %s", kindName(n))
	}
	return n.Value, nil
}

// stringList and stringMap return the line of the offending entry with
// their error, so the message points at the entry, not at its list.
func stringList(n *yaml.Node) ([]string, int, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, n.Line, fmt.Errorf("must be a list of strings, got %s", kindName(n))
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		s, err := scalarString(item)
		if err != nil {
			return nil, item.Line, fmt.Errorf("item %d %v", i+1, err)
		}
		out = append(out, s)
	}
	return out, n.Line, nil
}

func stringMap(n *yaml.Node) (map[string]string, []string, int, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, n.Line, fmt.Errorf("must be a map of NAME: value, got %s", kindName(n))
	}
	out := map[string]string{}
	var order []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !validEnvName(k.Value) {
			return nil, nil, k.Line, fmt.Errorf("%q is not a valid variable name (letters, digits, _; not starting with a digit)", k.Value)
		}
		if reservedEnvName(k.Value) {
			return nil, nil, k.Line, fmt.Errorf("%s is set by sup itself and cannot be overridden", k.Value)
		}
		if _, dup := out[k.Value]; dup {
			return nil, nil, k.Line, fmt.Errorf("%s given twice", k.Value)
		}
		s, err := scalarString(v)
		if err != nil {
			return nil, nil, v.Line, fmt.Errorf("%s %v", k.Value, err)
		}
		order = append(order, k.Value)
		out[k.Value] = s
	}
	return out, order, n.Line, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%s %q", strings.TrimPrefix(n.Tag, "!!"), n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

// yamlError labels a YAML syntax error with the document's path and line.
// yaml.v3's own line numbers are unreliable (0-based for parser errors,
// 1-based for scanner errors, absent on the first line), so the line is found
// by parsing ever longer prefixes of the block: the error is on the line after
// the longest prefix that still parses.
func yamlError(path string, lineOffset int, block []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if _, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "line ") {
		msg = rest
	}
	return fmt.Errorf("%s:%d: malformed frontmatter YAML: %s", path, yamlErrorLine(block)+lineOffset, msg)
}

// maxBisectLines bounds the quadratic search; frontmatter is a few lines.
const maxBisectLines = 400

func yamlErrorLine(block []byte) int {
	lines := bytes.SplitAfter(block, []byte("\n"))
	good := 0
	for k := 1; k <= len(lines) && k <= maxBisectLines; k++ {
		var n yaml.Node
		if yaml.Unmarshal(bytes.Join(lines[:k], nil), &n) == nil {
			good = k
		}
	}
	return min(good+1, len(lines))
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// loneCR returns the index of the first CR in b not followed by LF, or -1.
func loneCR(b []byte) int {
	for i, c := range b {
		if c == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			return i
		}
	}
	return -1
}
