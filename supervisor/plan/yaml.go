//go:build linux

package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
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
		return yamlDecodeError(err, v)
	}
	return nil
}

var unknownField = regexp.MustCompile(`^(line \d+): field (\S+) not found in type \S+$`)

// yamlDecodeError rewrites a strict yaml.v3 decode error into one line per
// problem in the user's terms: "line 3: unknown key cmd (valid: command, …)"
// instead of Go type names.
func yamlDecodeError(err error, into any) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		if m := unknownField.FindStringSubmatch(e); m != nil {
			e = fmt.Sprintf("%s: unknown key %s (valid: %s)", m[1], m[2], strings.Join(sortedYAMLKeys(into), ", "))
		}
		msgs = append(msgs, e)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// sortedYAMLKeys lists the yaml keys of the struct v points to, sorted.
func sortedYAMLKeys(v any) []string {
	keys := yamlkeys.Of(reflect.TypeOf(v))
	sort.Strings(keys)
	return keys
}
