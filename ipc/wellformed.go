package ipc

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// MaxDepth is how deeply maps and arrays may nest in any value this package
// decodes. It bounds recursion (a frame of 1 MiB of array headers would
// otherwise nest a million levels deep).
const MaxDepth = 64

// The msgpack library allocates containers from their declared lengths
// (make(map, n), make([]any, 0, n)) before reading any element, so five bytes
// announcing an array of 4 billion elements would exhaust memory. wellFormed
// walks the raw bytes first, without allocating, and rejects any length that
// the remaining bytes cannot possibly hold (each element needs at least one
// byte). After it passes, decoding allocates at most a small multiple of the
// frame size.

var errTruncated = errors.New("malformed msgpack: value is truncated")

// mpKind classifies a msgpack value by its header.
type mpKind uint8

const (
	kNil mpKind = iota
	kBool
	kNegInt // a negative integer (any width)
	kUint   // a non-negative integer, whatever its encoding (uint or int)
	kFloat
	kStr
	kBin
	kArray
	kMap
	kExt
)

// mpHead is a decoded value header.
type mpHead struct {
	kind mpKind
	code byte
	n    int    // str/bin/ext: payload bytes; array: elements; map: pairs
	u    uint64 // kUint: the value
	i    int64  // kNegInt: the value
}

// readHead decodes the header of the value at b[i:]. For numbers, booleans
// and nil the header is the whole value; for strings, binary and extensions
// the n payload bytes follow at next; for containers the elements follow.
func readHead(b []byte, i int) (h mpHead, next int, err error) {
	if i >= len(b) {
		return h, i, errTruncated
	}
	c := b[i]
	h.code = c
	i++
	need := func(k int) error {
		if len(b)-i < k {
			return errTruncated
		}
		return nil
	}
	uintN := func(k int) uint64 {
		switch k {
		case 1:
			return uint64(b[i])
		case 2:
			return uint64(binary.BigEndian.Uint16(b[i:]))
		case 4:
			return uint64(binary.BigEndian.Uint32(b[i:]))
		default:
			return binary.BigEndian.Uint64(b[i:])
		}
	}
	sized := func(kind mpKind, lenBytes, extra int) (mpHead, int, error) {
		if err := need(lenBytes + extra); err != nil {
			return h, i, err
		}
		h.kind = kind
		h.n = int(uintN(lenBytes))
		return h, i + lenBytes + extra, nil
	}
	switch {
	case c <= 0x7f:
		h.kind, h.u = kUint, uint64(c)
		return h, i, nil
	case c >= 0xe0:
		h.kind, h.i = kNegInt, int64(int8(c))
		return h, i, nil
	case c >= 0x80 && c <= 0x8f:
		h.kind, h.n = kMap, int(c&0x0f)
		return h, i, nil
	case c >= 0x90 && c <= 0x9f:
		h.kind, h.n = kArray, int(c&0x0f)
		return h, i, nil
	case c >= 0xa0 && c <= 0xbf:
		h.kind, h.n = kStr, int(c&0x1f)
		return h, i, nil
	}
	switch c {
	case 0xc0:
		h.kind = kNil
		return h, i, nil
	case 0xc2, 0xc3:
		h.kind = kBool
		return h, i, nil
	case 0xc4, 0xc5, 0xc6:
		return sized(kBin, 1<<(c-0xc4), 0)
	case 0xc7, 0xc8, 0xc9:
		return sized(kExt, 1<<(c-0xc7), 1)
	case 0xca, 0xcb:
		k := 4 << (c - 0xca)
		if err := need(k); err != nil {
			return h, i, err
		}
		h.kind = kFloat
		return h, i + k, nil
	case 0xcc, 0xcd, 0xce, 0xcf:
		k := 1 << (c - 0xcc)
		if err := need(k); err != nil {
			return h, i, err
		}
		h.kind, h.u = kUint, uintN(k)
		return h, i + k, nil
	case 0xd0, 0xd1, 0xd2, 0xd3:
		k := 1 << (c - 0xd0)
		if err := need(k); err != nil {
			return h, i, err
		}
		u := uintN(k)
		var v int64
		switch k {
		case 1:
			v = int64(int8(u))
		case 2:
			v = int64(int16(u))
		case 4:
			v = int64(int32(u))
		default:
			v = int64(u)
		}
		if v >= 0 {
			h.kind, h.u = kUint, uint64(v)
		} else {
			h.kind, h.i = kNegInt, v
		}
		return h, i + k, nil
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
		k := 1 << (c - 0xd4)
		if err := need(1 + k); err != nil {
			return h, i, err
		}
		h.kind, h.n = kExt, k
		return h, i + 1, nil // type byte consumed; k payload bytes follow
	case 0xd9, 0xda, 0xdb:
		return sized(kStr, 1<<(c-0xd9), 0)
	case 0xdc, 0xdd:
		return sized(kArray, 2<<(c-0xdc), 0)
	case 0xde, 0xdf:
		return sized(kMap, 2<<(c-0xde), 0)
	}
	return h, i, fmt.Errorf("malformed msgpack: byte 0x%02x at offset %d is not a valid type code", c, i-1)
}

// skipValue returns the offset just past the value starting at b[i],
// checking every declared length against the bytes that remain.
func skipValue(b []byte, i, depth int) (int, error) {
	h, j, err := readHead(b, i)
	if err != nil {
		return j, err
	}
	rest := len(b) - j
	switch h.kind {
	case kStr, kBin, kExt:
		if h.n > rest {
			return j, errTruncated
		}
		return j + h.n, nil
	case kArray, kMap:
		if depth >= MaxDepth {
			return j, fmt.Errorf("malformed msgpack: maps and arrays nest deeper than %d levels", MaxDepth)
		}
		items := h.n
		if h.kind == kMap {
			items *= 2
		}
		if items > rest {
			return j, fmt.Errorf("malformed msgpack: %s declares %d entries but only %d bytes follow",
				kindName(h.code), h.n, rest)
		}
		for k := 0; k < items; k++ {
			if j, err = skipValue(b, j, depth+1); err != nil {
				return j, err
			}
		}
	}
	return j, nil
}

// wellFormed reports whether b holds exactly one complete, sanely sized
// msgpack value.
func wellFormed(b []byte) error {
	if len(b) == 0 {
		return errors.New("malformed msgpack: no value")
	}
	end, err := skipValue(b, 0, 0)
	if err != nil {
		return err
	}
	if end != len(b) {
		return fmt.Errorf("malformed msgpack: %d trailing bytes after the value", len(b)-end)
	}
	return nil
}

// kindName names the msgpack type of a value from its first byte, for error
// messages ("expected a map, got an array").
func kindName(c byte) string {
	switch {
	case c <= 0x7f, c >= 0xe0, c >= 0xcc && c <= 0xd3:
		return "an integer"
	case c >= 0x80 && c <= 0x8f, c == 0xde, c == 0xdf:
		return "a map"
	case c >= 0x90 && c <= 0x9f, c == 0xdc, c == 0xdd:
		return "an array"
	case c >= 0xa0 && c <= 0xbf, c >= 0xd9 && c <= 0xdb:
		return "a string"
	case c == 0xc0:
		return "nil"
	case c == 0xc2, c == 0xc3:
		return "a boolean"
	case c >= 0xc4 && c <= 0xc6:
		return "binary data"
	case c == 0xca, c == 0xcb:
		return "a float"
	case c >= 0xc7 && c <= 0xc9, c >= 0xd4 && c <= 0xd8:
		return "an extension value"
	}
	return fmt.Sprintf("the invalid byte 0x%02x", c)
}

// headName is kindName with the sign of integers, for unsigned fields.
func headName(h mpHead) string {
	if h.kind == kNegInt {
		return "a negative integer"
	}
	return kindName(h.code)
}
