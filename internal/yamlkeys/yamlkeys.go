// Package yamlkeys lists the YAML keys a struct accepts, for error
// messages that name the valid choices ("unknown key cmd (valid: …)").
// It is the one copy shared by the profile, config and classifier decoders.
package yamlkeys

import (
	"reflect"
	"strings"
)

// Of lists the yaml keys of struct type t (a pointer is followed) in
// declaration order, the keys of `yaml:",inline"` fields included; fields
// tagged "-" or untagged are left out.
func Of(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			keys = append(keys, Of(f.Type)...)
			continue
		}
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}
