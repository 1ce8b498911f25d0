package supervisor

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

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
			e = fmt.Sprintf("%s: unknown key %s (valid: %s)", m[1], m[2], strings.Join(yamlKeys(into), ", "))
		}
		msgs = append(msgs, e)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// yamlKeys lists the yaml keys of the struct v points to.
func yamlKeys(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
