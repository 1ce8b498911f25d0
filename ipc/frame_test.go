//go:build linux

package ipc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestFrameRoundTrip(t *testing.T) {
	type item struct {
		Name  string         `msgpack:"name"`
		Count uint64         `msgpack:"count"`
		Tags  []string       `msgpack:"tags"`
		Extra map[string]any `msgpack:"extra"`
	}
	values := []any{
		"hello",
		int64(-42),
		uint64(math.MaxUint64),
		3.5,
		true,
		[]any{"a", int64(1), nil},
		map[string]any{"nested": map[string]any{"k": "v"}, "list": []any{int64(1), int64(2)}},
		item{Name: "x", Count: 7, Tags: []string{"a"}, Extra: map[string]any{"n": int64(1)}},
		strings.Repeat("z", 100_000), // past the eager-allocation size
	}
	for _, v := range values {
		var buf bytes.Buffer
		if err := WriteFrame(&buf, v); err != nil {
			t.Fatalf("WriteFrame(%T): %v", v, err)
		}
		if n := binary.BigEndian.Uint32(buf.Bytes()); int(n) != buf.Len()-4 {
			t.Fatalf("%T: length prefix %d, body %d", v, n, buf.Len()-4)
		}
		body, err := ReadFrame(&buf, 0)
		if err != nil {
			t.Fatalf("ReadFrame(%T): %v", v, err)
		}
		if buf.Len() != 0 {
			t.Fatalf("%T: %d bytes left after the frame", v, buf.Len())
		}
		got := reflect.New(reflect.TypeOf(v))
		if err := unmarshal(body, got.Interface()); err != nil {
			t.Fatalf("decode %T: %v", v, err)
		}
		if !reflect.DeepEqual(got.Elem().Interface(), v) {
			t.Fatalf("round trip of %T: got %#v, want %#v", v, got.Elem().Interface(), v)
		}
	}
}

// TestMapsDecodeAsStringKeyed: clients decoding into any get
// map[string]any, never map[any]any.
func TestMapsDecodeAsStringKeyed(t *testing.T) {
	body := mustMarshal(t, map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": 1}}}})
	var v any
	if err := unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("top level decoded as %T", v)
	}
	inner, ok := m["a"].(map[string]any)
	if !ok {
		t.Fatalf("nested map decoded as %T", m["a"])
	}
	list := inner["b"].([]any)
	if _, ok := list[0].(map[string]any); !ok {
		t.Fatalf("map in array decoded as %T", list[0])
	}
	if n, ok := list[0].(map[string]any)["c"].(int64); !ok || n != 1 {
		t.Fatalf("integer decoded as %T %v, want int64 1", list[0].(map[string]any)["c"], list[0].(map[string]any)["c"])
	}
}

// TestWriteFrameSingleWrite: a frame must reach the writer in one Write.
func TestWriteFrameSingleWrite(t *testing.T) {
	w := &countingWriter{}
	if err := WriteFrame(w, map[string]any{"k": strings.Repeat("v", 5000)}); err != nil {
		t.Fatal(err)
	}
	if w.writes != 1 {
		t.Fatalf("%d writes, want 1", w.writes)
	}
}

type countingWriter struct{ writes int }

func (w *countingWriter) Write(p []byte) (int, error) { w.writes++; return len(p), nil }

func header(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

func TestReadFrameLimits(t *testing.T) {
	const max = 1024
	// Exactly max is fine.
	body := bytes.Repeat([]byte{0xc0}, max)
	got, err := ReadFrame(bytes.NewReader(append(header(max), body...)), max)
	if err != nil || len(got) != max {
		t.Fatalf("frame of exactly max: len %d, err %v", len(got), err)
	}
	// Zero.
	if _, err := ReadFrame(bytes.NewReader(header(0)), max); !errors.Is(err, ErrEmptyFrame) {
		t.Fatalf("zero length: err %v, want ErrEmptyFrame", err)
	}
	// max+1 names both numbers.
	_, err = ReadFrame(bytes.NewReader(append(header(max+1), body...)), max)
	var tl *FrameTooLargeError
	if !errors.As(err, &tl) || tl.Size != max+1 || tl.Max != max {
		t.Fatalf("max+1: err %v, want FrameTooLargeError{%d, %d}", err, max+1, max)
	}
	if !strings.Contains(err.Error(), "1025") || !strings.Contains(err.Error(), "1024") {
		t.Fatalf("error %q does not name the size and the limit", err)
	}
	// Default limit when max <= 0.
	if _, err := ReadFrame(bytes.NewReader(header(DefaultMaxFrame+1)), 0); !errors.As(err, &tl) {
		t.Fatalf("default max: err %v", err)
	}
}

// hugeReader announces a 4 GiB frame and then has nothing more to say.
type hugeReader struct{ sent bool }

func (r *hugeReader) Read(p []byte) (int, error) {
	if r.sent {
		return 0, io.EOF
	}
	r.sent = true
	return copy(p, header(math.MaxUint32)), nil
}

func TestReadFrameHugeLengthDoesNotAllocate(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := ReadFrame(&hugeReader{}, DefaultMaxFrame)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	var tl *FrameTooLargeError
	if !errors.As(err, &tl) || tl.Size != math.MaxUint32 {
		t.Fatalf("err %v, want FrameTooLargeError", err)
	}
	if elapsed > time.Second { // reading 4 GiB would take far longer
		t.Fatalf("took %v", elapsed)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<10 {
		t.Fatalf("allocated %d bytes for a refused frame", d)
	}
	// Within the limit but announced large: memory grows with the bytes
	// that actually arrive, not with the announcement.
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = ReadFrame(io.MultiReader(bytes.NewReader(header(DefaultMaxFrame)), bytes.NewReader([]byte{1, 2, 3})), DefaultMaxFrame)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err %v, want io.ErrUnexpectedEOF", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 256<<10 {
		t.Fatalf("allocated %d bytes for 3 bytes of a 1 MiB frame", d)
	}
}

func TestReadFrameTruncation(t *testing.T) {
	full := frameOf(mustMarshal(t, map[string]any{"v": 1}))
	for cut := 0; cut < len(full); cut++ {
		_, err := ReadFrame(bytes.NewReader(full[:cut]), 0)
		want := io.ErrUnexpectedEOF
		if cut == 0 {
			want = io.EOF
		}
		if !errors.Is(err, want) {
			t.Fatalf("cut at %d: err %v, want %v", cut, err, want)
		}
	}
	// Two frames back to back are read one at a time.
	r := bytes.NewReader(append(append([]byte{}, full...), full...))
	for i := 0; i < 2; i++ {
		if _, err := ReadFrame(r, 0); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	if _, err := ReadFrame(r, 0); err != io.EOF {
		t.Fatalf("after two frames: %v, want io.EOF", err)
	}
}

// TestSpecHexExample keeps the worked example in specs/ipc.md honest.
func TestSpecHexExample(t *testing.T) {
	var buf bytes.Buffer
	req := Request{V: 1, ID: 1, Method: "hello"}
	if err := WriteFrame(&buf, &req); err != nil {
		t.Fatal(err)
	}
	const want = "00000015" + "83" + "a176" + "01" + "a26964" + "01" + "a66d6574686f64" + "a568656c6c6f"
	if got := hexOf(buf.Bytes()); got != want {
		t.Fatalf("hello request frame\n got %s\nwant %s", got, want)
	}
	buf.Reset()
	resp := Response{ID: 1, OK: true, Result: mustMarshal(t, HelloResult{
		Server: "0.1.0", Protocol: 1, Methods: []string{"hello", "subscribe"}, Events: []string{},
	})}
	if err := WriteFrame(&buf, &resp); err != nil {
		t.Fatal(err)
	}
	t.Logf("hello response frame: %s", hexOf(buf.Bytes()))
	const wantResp = "0000004983a26964" + "01" + "a26f6bc3a6726573756c7484a6736572766572a5302e312e30a870726f746f636f6c01a76d6574686f647392a568656c6c6fa9737562736372696265a66576656e747390"
	if got := hexOf(buf.Bytes()); got != wantResp {
		t.Fatalf("hello response frame\n got %s\nwant %s", got, wantResp)
	}
	buf.Reset()
	errResp := Response{ID: 7, Error: Errorf(CodeUnknownMethod, `unknown method "nope"`)}
	if err := WriteFrame(&buf, &errResp); err != nil {
		t.Fatal(err)
	}
	const wantErr = "0000004283a2696407a26f6bc2a56572726f7282a4636f6465ae554e4b4e4f574e5f4d4554484f44a76d657373616765b5756e6b6e6f776e206d6574686f6420226e6f706522"
	if got := hexOf(buf.Bytes()); got != wantErr {
		t.Fatalf("error response frame\n got %s\nwant %s", got, wantErr)
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
