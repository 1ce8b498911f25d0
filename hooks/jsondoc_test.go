//go:build linux

package hooks

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The ordered tree round-trips: untouched, byte for byte; laid out anew,
// to the same value.
func TestJSONRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`{"a":1,"b":[1,2.50,-3e2,true,false,null],"c":{"d":"x\"y\\z\u00e9\n","e":[]}}`,
		"{\n\t\"tab\": [\n\t\t{\"k\" : \"v\"} ,\n\t\t[ ]\n\t]\n}",
		`{"unicode":"日本","esc":"<a&b>","slash":"a\/b"}`,
	} {
		doc, err := parseJSON("x.json", []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := strings.TrimSuffix(string(doc.encode("  ")), "\n"); got != in {
			t.Errorf("untouched %s came out as %s", in, got)
		}
		var dirty func(n *jnode)
		dirty = func(n *jnode) {
			n.dirty = true
			for _, v := range n.vals {
				dirty(v)
			}
		}
		dirty(doc)
		out := doc.encode("  ")
		var a, b any
		json.Unmarshal([]byte(in), &a)
		if err := json.Unmarshal(out, &b); err != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("laid out anew, %s became %s (%v)", in, out, err)
		}
	}
}

func TestDetectIndent(t *testing.T) {
	for in, want := range map[string]string{
		"{}":                  "  ",
		"{\n    \"a\": 1\n}":  "    ",
		"{\n\t\"a\": 1\n}":    "\t",
		"{\"a\": 1,\n \"b\"}": " ",
	} {
		if got := detectIndent([]byte(in)); got != want {
			t.Errorf("detectIndent(%q) = %q, want %q", in, got, want)
		}
	}
}
