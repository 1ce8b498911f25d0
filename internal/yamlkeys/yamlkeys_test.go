package yamlkeys

import (
	"reflect"
	"slices"
	"testing"
)

type inner struct {
	C string `yaml:"c"`
}

type outer struct {
	B     string `yaml:"b,omitempty"`
	A     int    `yaml:"a"`
	Skip  bool   `yaml:"-"`
	Plain string
	inner `yaml:",inline"`
}

// TestOf: declaration order, options cut, "-" and untagged fields left
// out, inline structs flattened, pointers followed.
func TestOf(t *testing.T) {
	want := []string{"b", "a", "c"}
	for _, v := range []any{outer{}, &outer{}} {
		if got := Of(reflect.TypeOf(v)); !slices.Equal(got, want) {
			t.Errorf("Of(%T) = %q, want %q", v, got, want)
		}
	}
}
