package ipc

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// typeCheck walks the msgpack value at b[i] alongside the Go type t and
// reports the first mismatch with the key path where it happened. It exists
// because the msgpack library is lenient where a protocol must not be: it
// stores -1 into a uint as 18446744073709551615, truncates 300 into an int8,
// and its errors name byte codes, not keys. typeCheck only reports what it is
// sure of; anything it does not model (custom decoders, inlined embedded
// structs) is left to the library's own checks. b must be wellFormed.
func typeCheck(b []byte, i int, t reflect.Type, path string, depth int) (int, error) {
	h, j, err := readHead(b, i)
	if err != nil {
		return j, err
	}
	if h.kind == kNil || decodesItself(t) {
		return skipValue(b, i, depth)
	}
	mismatch := func(want string) error {
		return typeError(path, want, headName(h))
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeCheck(b, i, t.Elem(), path, depth)
	case reflect.Interface:
		return skipValue(b, i, depth)
	case reflect.Bool:
		if h.kind != kBool {
			return j, mismatch("a boolean")
		}
		return j, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		switch {
		case h.kind == kUint && h.u > uint64(math.MaxInt64>>(64-bits)):
			return j, rangeError(path, strconv.FormatUint(h.u, 10), t)
		case h.kind == kNegInt && h.i < math.MinInt64>>(64-bits):
			return j, rangeError(path, strconv.FormatInt(h.i, 10), t)
		case h.kind != kUint && h.kind != kNegInt:
			return j, mismatch("an integer")
		}
		return j, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if h.kind != kUint {
			return j, mismatch("an unsigned integer")
		}
		if h.u > math.MaxUint64>>(64-t.Bits()) {
			return j, rangeError(path, strconv.FormatUint(h.u, 10), t)
		}
		return j, nil
	case reflect.Float32, reflect.Float64:
		if h.kind != kFloat && h.kind != kUint && h.kind != kNegInt {
			return j, mismatch("a number")
		}
		return j, nil
	case reflect.String:
		if h.kind != kStr {
			return j, mismatch("a string")
		}
		return j + h.n, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && (h.kind == kBin || h.kind == kStr) {
			return j + h.n, nil
		}
		if h.kind != kArray {
			return j, mismatch("an array")
		}
		for k := 0; k < h.n; k++ {
			if j, err = typeCheck(b, j, t.Elem(), path+"["+strconv.Itoa(k)+"]", depth+1); err != nil {
				return j, err
			}
		}
		return j, nil
	case reflect.Map:
		if h.kind != kMap {
			return j, mismatch("a map")
		}
		for k := 0; k < h.n; k++ {
			var key string
			var after int
			if t.Key().Kind() == reflect.String {
				key, after, err = mapKey(b, j, path)
			} else {
				after, err = typeCheck(b, j, t.Key(), path, depth+1)
			}
			if err != nil {
				return after, err
			}
			if j, err = typeCheck(b, after, t.Elem(), joinPath(path, key), depth+1); err != nil {
				return j, err
			}
		}
		return j, nil
	case reflect.Struct:
		fs := fieldsOf(t)
		if fs.asArray {
			return skipValue(b, i, depth)
		}
		if h.kind != kMap {
			return j, mismatch("a map")
		}
		for k := 0; k < h.n; k++ {
			key, after, err := mapKey(b, j, path)
			if err != nil {
				return j, err
			}
			ft, ok := fs.types[key]
			switch {
			case ok:
				j, err = typeCheck(b, after, ft, joinPath(path, key), depth+1)
			case fs.complete && len(fs.names) == 0:
				return j, fmt.Errorf("unknown key %q (no keys are accepted here)", joinPath(path, key))
			case fs.complete:
				return j, fmt.Errorf("unknown key %q (known keys: %s)", joinPath(path, key), strings.Join(fs.names, ", "))
			default:
				j, err = skipValue(b, after, depth+1)
			}
			if err != nil {
				return j, err
			}
		}
		return j, nil
	}
	return skipValue(b, i, depth)
}

// mapKey reads a string map key at b[i].
func mapKey(b []byte, i int, path string) (string, int, error) {
	h, j, err := readHead(b, i)
	if err != nil {
		return "", j, err
	}
	if h.kind != kStr {
		where := "map keys"
		if path != "" {
			where = fmt.Sprintf("keys of %q", path)
		}
		return "", j, fmt.Errorf("%s must be strings, got %s", where, headName(h))
	}
	return string(b[j : j+h.n]), j + h.n, nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func typeError(path, want, got string) error {
	if path == "" {
		return fmt.Errorf("expected %s, got %s", want, got)
	}
	return fmt.Errorf("key %q: expected %s, got %s", path, want, got)
}

func rangeError(path, val string, t reflect.Type) error {
	return fmt.Errorf("key %q: %s does not fit in %s", path, val, t.Kind())
}

var (
	customDecoderType = reflect.TypeFor[msgpack.CustomDecoder]()
	unmarshalerType   = reflect.TypeFor[msgpack.Unmarshaler]()
	binaryUnmarshaler = reflect.TypeFor[encoding.BinaryUnmarshaler]()
	textUnmarshaler   = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType          = reflect.TypeFor[time.Time]()
)

// decodesItself reports whether t has its own decoding rules, which
// typeCheck does not second-guess.
func decodesItself(t reflect.Type) bool {
	if t == timeType {
		return true
	}
	for _, it := range []reflect.Type{customDecoderType, unmarshalerType, binaryUnmarshaler, textUnmarshaler} {
		if t.Implements(it) || reflect.PointerTo(t).Implements(it) {
			return true
		}
	}
	return false
}

// fieldSet is how the msgpack library maps keys to a struct's fields, as far
// as typeCheck models it.
type fieldSet struct {
	types    map[string]reflect.Type
	names    []string // sorted, for "known keys" in errors
	complete bool     // false when embedded structs may add keys we did not map
	asArray  bool     // encoded as an array: not checked here
}

var fieldCache sync.Map // reflect.Type → *fieldSet

func fieldsOf(t reflect.Type) *fieldSet {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{types: map[string]reflect.Type{}, complete: true}
	for k := 0; k < t.NumField(); k++ {
		f := t.Field(k)
		name, opts, _ := strings.Cut(f.Tag.Get("msgpack"), ",")
		if f.Name == "_msgpack" && (strings.Contains(opts, "as_array") || strings.Contains(opts, "asArray")) {
			fs.asArray = true
		}
		if name == "-" || (f.PkgPath != "" && !f.Anonymous) {
			continue
		}
		if f.Anonymous && !strings.Contains(opts, "noinline") {
			fs.complete = false // the library may inline its fields
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs.types[name] = f.Type
		for _, o := range strings.Split(opts, ",") {
			if alias, ok := strings.CutPrefix(o, "alias:"); ok {
				fs.types[alias] = f.Type
			}
		}
	}
	for n := range fs.types {
		fs.names = append(fs.names, n)
	}
	sort.Strings(fs.names)
	fieldCache.Store(t, fs)
	return fs
}
