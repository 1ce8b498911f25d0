package termreply

import (
	"reflect"
	"testing"
)

// FuzzRespond writes arbitrary output whole, split at an arbitrary point,
// and one byte per chunk: nothing may panic, the hold stays bounded, and
// every way of chunking gives the same replies.
func FuzzRespond(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c.out), uint16(len(c.out)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		k := int(split) % (len(data) + 1)
		whole, _ := write(string(data))
		halves, r := write(string(data[:k]), string(data[k:]))
		if !reflect.DeepEqual(halves, whole) {
			t.Fatalf("split at %d: got %q, want %q", k, halves, whole)
		}
		if len(r.held) > MaxHeld {
			t.Fatalf("holding %d bytes, more than %d", len(r.held), MaxHeld)
		}
		var bytewise []string
		for i := range data {
			bytewise = append(bytewise, string(data[i:i+1]))
		}
		if one, _ := write(bytewise...); !reflect.DeepEqual(one, whole) {
			t.Fatalf("byte by byte: got %q, want %q", one, whole)
		}
	})
}
