//go:build linux

package ipc

import (
	"strings"
	"testing"
	"time"
)

func TestDecodeStrictMessages(t *testing.T) {
	type inner struct {
		Name string `msgpack:"name"`
	}
	type params struct {
		Text    string            `msgpack:"text"`
		Lines   uint16            `msgpack:"lines"`
		Delta   int8              `msgpack:"delta"`
		Ratio   float64           `msgpack:"ratio"`
		Force   bool              `msgpack:"force"`
		Tags    []string          `msgpack:"tags"`
		Labels  map[string]string `msgpack:"labels"`
		Inner   *inner            `msgpack:"inner"`
		Items   []inner           `msgpack:"items"`
		Any     any               `msgpack:"any"`
		When    time.Time         `msgpack:"when"`
		private int
	}
	ok := []map[string]any{
		{},
		{"text": "hi", "lines": 65535, "delta": -128, "ratio": 1, "force": true},
		{"ratio": 0.5, "tags": []string{"a"}, "labels": map[string]string{"k": "v"}},
		{"inner": map[string]any{"name": "x"}, "items": []any{map[string]any{"name": "y"}}},
		{"any": []any{1, "x", map[string]any{"z": nil}}, "text": nil, "inner": nil},
	}
	for _, m := range ok {
		var p params
		if err := decodeStrict(mustMarshal(t, m), &p); err != nil {
			t.Errorf("%v: %v", m, err)
		}
	}
	var p params
	if err := decodeStrict(mustMarshal(t, map[string]any{"text": "hi", "lines": 3, "items": []any{map[string]any{"name": "y"}}}), &p); err != nil ||
		p.Text != "hi" || p.Lines != 3 || p.Items[0].Name != "y" {
		t.Fatalf("decoded %+v, %v", p, err)
	}

	bad := []struct {
		in   any
		want string
	}{
		{map[string]any{"text": 5}, `key "text": expected a string, got an integer`},
		{map[string]any{"lines": -1}, `key "lines": expected an unsigned integer, got a negative integer`},
		{map[string]any{"lines": 70000}, `key "lines": 70000 does not fit in uint16`},
		{map[string]any{"delta": 300}, `key "delta": 300 does not fit in int8`},
		{map[string]any{"delta": -300}, `key "delta": -300 does not fit in int8`},
		{map[string]any{"delta": 1.5}, `key "delta": expected an integer, got a float`},
		{map[string]any{"ratio": "1"}, `key "ratio": expected a number, got a string`},
		{map[string]any{"force": 1}, `key "force": expected a boolean, got an integer`},
		{map[string]any{"tags": "a"}, `key "tags": expected an array, got a string`},
		{map[string]any{"tags": []any{"a", 2}}, `key "tags[1]": expected a string, got an integer`},
		{map[string]any{"labels": map[string]any{"k": 1}}, `key "labels.k": expected a string, got an integer`},
		{map[string]any{"inner": map[string]any{"nam": "x"}}, `unknown key "inner.nam" (known keys: name)`},
		{map[string]any{"items": []any{map[string]any{"name": 1}}}, `key "items[0].name": expected a string, got an integer`},
		{map[string]any{"txt": "x"}, `unknown key "txt" (known keys: any, delta, force, inner, items, labels, lines, ratio, tags, text, when)`},
		{map[string]any{"private": 1}, `unknown key "private"`},
		{[]any{1}, `expected a map, got an array`},
		{map[int]any{1: 1}, `map keys must be strings, got an integer`},
	}
	for _, tc := range bad {
		var p params
		err := decodeStrict(mustMarshal(t, tc.in), &p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestDecodeParams(t *testing.T) {
	req := &Request{Method: "inject", Params: mustMarshal(t, map[string]any{"text": 1})}
	var p struct {
		Text string `msgpack:"text"`
	}
	err := req.DecodeParams(&p)
	e, ok := err.(*Error)
	if !ok || e.Code != CodeBadRequest || !strings.HasPrefix(e.Message, "params of inject: ") {
		t.Fatalf("DecodeParams: %v", err)
	}
	p.Text = "kept"
	if err := (&Request{}).DecodeParams(&p); err != nil || p.Text != "kept" {
		t.Fatalf("absent params: %v %q", err, p.Text)
	}
}

func TestWellFormed(t *testing.T) {
	good := [][]byte{
		{0xc0}, {0x00}, {0xff}, {0x90}, {0x80}, {0xa0},
		mustMarshal(t, map[string]any{"a": []any{1, "b", 2.5, true, nil, []byte{1, 2}}}),
		mustMarshal(t, time.Unix(1, 0)),
		append([]byte{0x91}, mustMarshal(t, -1<<40)...),
	}
	for _, b := range good {
		if err := wellFormed(b); err != nil {
			t.Errorf("%x: %v", b, err)
		}
	}
	bad := map[string][]byte{
		"empty":            {},
		"reserved code":    {0xc1},
		"truncated str":    {0xa5, 'a'},
		"truncated uint32": {0xce, 0, 0},
		"huge array":       {0xdd, 0xff, 0xff, 0xff, 0xff},
		"huge map":         {0xdf, 0x7f, 0xff, 0xff, 0xff, 0xc0, 0xc0},
		"huge bin":         {0xc6, 0xff, 0xff, 0xff, 0xff},
		"huge ext":         {0xc9, 0xff, 0xff, 0xff, 0xff, 0x01},
		"trailing":         {0xc0, 0xc0},
		"deep":             append(bytesRepeat(0x91, MaxDepth+1), 0xc0),
		"fixext short":     {0xd8, 0x01, 0x00},
	}
	for name, b := range bad {
		if err := wellFormed(b); err == nil {
			t.Errorf("%s (%x) accepted", name, b)
		}
	}
	if err := wellFormed(append(bytesRepeat(0x91, MaxDepth), 0xc0)); err != nil {
		t.Errorf("nesting of exactly MaxDepth refused: %v", err)
	}
}
