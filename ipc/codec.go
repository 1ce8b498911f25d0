package ipc

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// One encoder configuration for every byte this package writes, so that
// frames look the same whoever produced them:
//   - struct keys come from `msgpack` tags (snake_case strings);
//   - integers use the smallest msgpack encoding (UseCompactInts), which keeps
//     frames small and keeps small numbers exact in JavaScript decoders that
//     turn 64-bit encodings into BigInt or lose precision;
//   - map keys are sorted, so equal values give equal bytes (tests, hex
//     examples in the spec, caches).
type encBuf struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
}

var encPool = sync.Pool{New: func() any {
	eb := &encBuf{}
	eb.enc = msgpack.NewEncoder(&eb.buf)
	eb.enc.SetCustomStructTag("msgpack")
	eb.enc.UseCompactInts(true)
	eb.enc.SetSortMapKeys(true)
	return eb
}}

// maxPooledBuf keeps one large response from pinning its buffer forever.
const maxPooledBuf = 64 << 10

func getEncBuf() *encBuf { return encPool.Get().(*encBuf) }

func putEncBuf(eb *encBuf) {
	if eb.buf.Cap() > maxPooledBuf {
		return
	}
	eb.buf.Reset()
	encPool.Put(eb)
}

// frame encodes v into eb.buf as a complete frame (header + body).
func (eb *encBuf) frame(v any) error {
	eb.buf.Reset()
	eb.buf.Write(make([]byte, frameHeaderLen))
	if err := eb.enc.Encode(v); err != nil {
		return fmt.Errorf("ipc: encode %T: %w", v, err)
	}
	return fillFrameHeader(eb.buf.Bytes())
}

// marshal encodes v as one msgpack value with the package's settings.
func marshal(v any) ([]byte, error) {
	eb := getEncBuf()
	defer putEncBuf(eb)
	eb.buf.Reset()
	if err := eb.enc.Encode(v); err != nil {
		return nil, fmt.Errorf("ipc: encode %T: %w", v, err)
	}
	return bytes.Clone(eb.buf.Bytes()), nil
}

// newDecoder returns a decoder with the package's settings. Values decoded
// into `any` come out as nil, bool, int64, uint64, float64, string, []any or
// map[string]any (loose decoding): clients get one integer type per
// signedness instead of int8/uint16/…, and maps are always keyed by string.
func newDecoder(b []byte) *msgpack.Decoder {
	d := msgpack.NewDecoder(bytes.NewReader(b))
	d.SetCustomStructTag("msgpack")
	d.UseLooseInterfaceDecoding(true)
	return d
}

// unmarshal decodes one msgpack value that must fill b exactly, ignoring
// unknown struct keys. Clients use it for results and events so that a newer
// server may add keys without breaking them. b is checked by wellFormed
// first: the msgpack library trusts declared lengths when allocating.
func unmarshal(b []byte, v any) error {
	if err := wellFormed(b); err != nil {
		return err
	}
	d := newDecoder(b)
	if err := d.Decode(v); err != nil {
		return readableDecodeError(err)
	}
	return nil
}

// decodeStrict decodes the msgpack value b into v, rejecting unknown keys,
// wrongly typed values, negative numbers for unsigned fields and integers that
// overflow their field, with messages a client author can act on
// (`"lines": expected an unsigned integer, got a negative integer`). The
// server uses it for request params: a typo in a key is an error, not a
// silently ignored option.
func decodeStrict(b []byte, v any) error {
	if err := wellFormed(b); err != nil {
		return err
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("decode target must be a non-nil pointer, not %T", v)
	}
	if _, err := typeCheck(b, 0, rv.Type().Elem(), "", 0); err != nil {
		return err
	}
	d := newDecoder(b)
	d.DisallowUnknownFields(true)
	if err := d.Decode(v); err != nil {
		return readableDecodeError(err)
	}
	return nil
}

var (
	reInvalidCode = regexp.MustCompile(`^msgpack: (?:invalid|unknown|unsupported) code=?\s*([0-9a-f]+) decoding (.*)$`)
	reUnknownFld  = regexp.MustCompile(`^msgpack: unknown field (".*")$`)
)

// readableDecodeError rewrites the msgpack library's messages
// ("msgpack: invalid code=a3 decoding int64") in protocol terms
// ("expected an integer, got a string").
func readableDecodeError(err error) error {
	msg := err.Error()
	if m := reUnknownFld.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("unknown key %s", m[1])
	}
	if m := reInvalidCode.FindStringSubmatch(msg); m != nil {
		c, perr := strconv.ParseUint(m[1], 16, 8)
		if perr == nil {
			return fmt.Errorf("expected %s, got %s", wantFromLib(m[2]), kindName(byte(c)))
		}
	}
	return fmt.Errorf("%s", strings.TrimPrefix(msg, "msgpack: "))
}

func wantFromLib(s string) string {
	switch {
	case strings.HasPrefix(s, "int"), strings.HasPrefix(s, "uint"):
		return "an integer"
	case strings.HasPrefix(s, "float"):
		return "a number"
	case strings.HasPrefix(s, "string"):
		return "a string"
	case s == "bool":
		return "a boolean"
	case strings.HasPrefix(s, "array"):
		return "an array"
	case strings.HasPrefix(s, "map"):
		return "a map"
	}
	return s
}
