//go:build linux

package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// Match reports how got (a decoded msgpack value) differs from want (a
// JSON matcher, see ipc/testdata/conformance/README.md), or nil.
func Match(want, got any) error {
	return match("", want, got)
}

func match(path string, want, got any) error {
	switch w := want.(type) {
	case nil:
		if got != nil {
			return fmt.Errorf("%s: got %v, want nil or absent", where(path), got)
		}
		return nil
	case map[string]any:
		if op, arg, ok := operator(w); ok {
			return matchOp(path, op, arg, got)
		}
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: got %T %v, want a map", where(path), got, got)
		}
		names := make([]string, 0, len(w))
		for k := range w {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if err := match(path+"."+k, w[k], g[k]); err != nil {
				return err
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Errorf("%s: got %T %v, want an array", where(path), got, got)
		}
		if len(g) != len(w) {
			return fmt.Errorf("%s: got %d elements %v, want %d", where(path), len(g), g, len(w))
		}
		for i := range w {
			if err := match(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); err != nil {
				return err
			}
		}
		return nil
	default:
		if !scalarEqual(want, got) {
			return fmt.Errorf("%s: got %v, want %v", where(path), got, want)
		}
		return nil
	}
}

func where(path string) string {
	if path == "" {
		return "value"
	}
	return strings.TrimPrefix(path, ".")
}

// operator recognises a one-key map whose key starts with "$".
func operator(w map[string]any) (string, any, bool) {
	if len(w) != 1 {
		return "", nil, false
	}
	for k, v := range w {
		if strings.HasPrefix(k, "$") {
			return k, v, true
		}
	}
	return "", nil, false
}

func matchOp(path, op string, arg, got any) error {
	switch op {
	case "$type":
		if kind := typeName(got); kind != arg {
			return fmt.Errorf("%s: got %s %v, want %v", where(path), kind, got, arg)
		}
	case "$gte":
		g, ok := number(got)
		n, _ := number(arg)
		if !ok || typeName(got) != "int" || g < n {
			return fmt.Errorf("%s: got %v, want an integer >= %v", where(path), got, arg)
		}
	case "$substr":
		g, ok := got.(string)
		if !ok || !strings.Contains(g, fmt.Sprint(arg)) {
			return fmt.Errorf("%s: got %q, want a string containing %q", where(path), got, arg)
		}
	case "$contains":
		g, _ := got.([]any)
		for _, w := range arg.([]any) {
			found := false
			for _, e := range g {
				found = found || scalarEqual(w, e)
			}
			if !found {
				return fmt.Errorf("%s: got %v, want it to contain %v", where(path), got, w)
			}
		}
	case "$one_of":
		for _, w := range arg.([]any) {
			if scalarEqual(w, got) {
				return nil
			}
		}
		return fmt.Errorf("%s: got %v, want one of %v", where(path), got, arg)
	default:
		return fmt.Errorf("%s: unknown matcher %s (valid: $type, $gte, $substr, $contains, $one_of)", where(path), op)
	}
	return nil
}

// typeName names got's msgpack type as the matchers do: str, int, float,
// bool, map, array, bin or nil.
func typeName(got any) string {
	switch got.(type) {
	case nil:
		return "nil"
	case string:
		return "str"
	case bool:
		return "bool"
	case map[string]any:
		return "map"
	case []any:
		return "array"
	case []byte:
		return "bin"
	case float32, float64:
		return "float"
	}
	if _, ok := number(got); ok {
		return "int"
	}
	return fmt.Sprintf("%T", got)
}

// number converts any integer or float (json.Number included) to float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case float32:
		return float64(n), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), true
	}
	return 0, false
}

func scalarEqual(want, got any) bool {
	if w, ok := number(want); ok {
		g, ok := number(got)
		return ok && w == g
	}
	return reflect.DeepEqual(want, got)
}

// Expand turns a JSON request value into what goes on the wire: integral
// numbers become integers (msgpack ints, not floats) and {"$repeat": [s,
// n]} becomes s repeated n times.
func Expand(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case float64:
		if x == math.Trunc(x) {
			return int64(x)
		}
		return x
	case map[string]any:
		if op, arg, ok := operator(x); ok && op == "$repeat" {
			a := arg.([]any)
			n, _ := number(a[1])
			return strings.Repeat(fmt.Sprint(a[0]), int(n))
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Expand(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Expand(e)
		}
		return out
	}
	return v
}
