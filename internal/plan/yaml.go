package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sup-tmux/sup/internal/yamlkeys"
)

// decodeYAML decodes a config or profile file strictly into v, which holds
// the defaults: present keys override them, unknown keys are errors (a typo
// must not silently leave a default in force), and an empty file is valid.
func decodeYAML(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return yamlDecodeError(err, data, v)
	}
	return nil
}

var (
	unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type (\S+)$`)
	badValue     = regexp.MustCompile("^line (\\d+): cannot unmarshal (!!\\w+)(?: `(.*)`)? into (.+)$")
)

// yamlDecodeError rewrites a strict yaml.v3 decode error into one line per
// problem in the user's terms, naming the key where it is: "line 3:
// unknown key cmd (valid: command, …)" at the top level, "line 2: unknown
// key skip_cooldwn under queue (valid: skip_cooldown)" below it (the
// children of the key it is under, not the top-level keys), and "line 2:
// queue.skip_cooldown: `10 minutes` is not a duration; write it like 10m
// (or 30s, 1h30m)" instead of Go type names.
func yamlDecodeError(err error, data []byte, into any) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root) // Best effort: only locates keys; the decode already failed.
	msgs := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		if m := unknownField.FindStringSubmatch(e); m != nil {
			line, _ := strconv.Atoi(m[1])
			keys := keysOfType(reflect.TypeOf(into), m[3])
			sort.Strings(keys)
			parent := keyPath(&root, line, m[2], true)
			if parent == "" {
				e = fmt.Sprintf("line %s: unknown key %s (valid: %s)", m[1], m[2], strings.Join(keys, ", "))
			} else {
				e = fmt.Sprintf("line %s: unknown key %s under %s (valid: %s)", m[1], m[2], parent, strings.Join(keys, ", "))
			}
		} else if m := badValue.FindStringSubmatch(e); m != nil {
			line, _ := strconv.Atoi(m[1])
			value := strings.TrimSuffix(m[3], "...")
			path := keyPath(&root, line, value, false)
			if path == "" {
				path = "a value"
			}
			if full := valueAt(&root, line, value); full != "" {
				value = full
			}
			e = fmt.Sprintf("line %s: %s: %s", m[1], path, wantType(m[4], m[2], value))
		}
		msgs = append(msgs, e)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// wantType says what a value of Go type goType looks like; tag and value
// are what the file held.
func wantType(goType, tag, value string) string {
	got := "`" + value + "`"
	if value == "" {
		got = "a " + strings.TrimPrefix(tag, "!!")
	}
	switch goType {
	case "time.Duration":
		return got + " is not a duration; write it like 10m (or 30s, 1h30m, 500ms)"
	case "int", "int64", "int32", "uint", "uint64", "uint32":
		return got + " is not a whole number"
	case "float64", "float32":
		return got + " is not a number"
	case "bool":
		return got + " is not true or false"
	case "string":
		return got + " is not a string (quote it)"
	}
	if strings.HasPrefix(goType, "[]") {
		return got + " is not a list"
	}
	if strings.HasPrefix(goType, "map[") || strings.Contains(goType, ".") {
		return got + " is not a mapping of keys"
	}
	return got + " is not a " + goType
}

// keysOfType lists the yaml keys of the struct type named name (as
// reflect prints it, "plan.QueueConfig") found anywhere in t.
func keysOfType(t reflect.Type, name string) []string {
	seen := map[reflect.Type]bool{}
	var find func(reflect.Type) []string
	find = func(t reflect.Type) []string {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return nil
		}
		seen[t] = true
		if t.String() == name {
			return yamlkeys.Of(t)
		}
		for i := 0; i < t.NumField(); i++ {
			if k := find(t.Field(i).Type); k != nil {
				return k
			}
		}
		return nil
	}
	return find(t)
}

// keyPath finds, in the document root, the mapping entry on line whose key
// (isKey) or value starts with text, and returns its dotted path: the
// entry's own path for a value, its parent's for a key ("" at the top).
func keyPath(root *yaml.Node, line int, text string, isKey bool) string {
	var walk func(n *yaml.Node, path string) (string, bool)
	walk = func(n *yaml.Node, path string) (string, bool) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				if p, ok := walk(c, path); ok {
					return p, true
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				child := k.Value
				if path != "" {
					child = path + "." + k.Value
				}
				if isKey && k.Line == line && k.Value == text {
					return path, true
				}
				if !isKey && v.Line == line && v.Kind == yaml.ScalarNode && strings.HasPrefix(v.Value, text) {
					return child, true
				}
				if p, ok := walk(v, child); ok {
					return p, true
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if p, ok := walk(c, fmt.Sprintf("%s[%d]", path, i)); ok {
					return p, true
				}
			}
		}
		return "", false
	}
	p, _ := walk(root, "")
	return p
}

// valueAt is the whole scalar on line that starts with text (yaml.v3
// shortens long values in its errors).
func valueAt(n *yaml.Node, line int, text string) string {
	if n.Kind == yaml.ScalarNode && n.Line == line && strings.HasPrefix(n.Value, text) {
		return n.Value
	}
	for _, c := range n.Content {
		if v := valueAt(c, line, text); v != "" {
			return v
		}
	}
	return ""
}
