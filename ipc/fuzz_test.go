//go:build linux

package ipc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// FuzzReadFrame: whatever the bytes, ReadFrame returns a frame that matches
// its prefix or one of its documented errors, and never panics.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{})
	f.Add(frameOf([]byte{0xc0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 1024
		body, err := ReadFrame(bytes.NewReader(data), max)
		var tl *FrameTooLargeError
		switch {
		case err == nil:
			n := binary.BigEndian.Uint32(data)
			if n == 0 || n > max || int(n) != len(body) || !bytes.Equal(body, data[4:4+n]) {
				t.Fatalf("frame %x from %x", body, data)
			}
		case errors.Is(err, io.EOF):
			if len(data) != 0 {
				t.Fatalf("io.EOF with %d bytes of input", len(data))
			}
		case errors.Is(err, io.ErrUnexpectedEOF):
			if len(data) >= 4 && len(data) >= 4+int(binary.BigEndian.Uint32(data)) {
				t.Fatalf("ErrUnexpectedEOF on a complete frame %x", data)
			}
		case errors.Is(err, ErrEmptyFrame):
			if binary.BigEndian.Uint32(data) != 0 {
				t.Fatal("ErrEmptyFrame for a non-zero length")
			}
		case errors.As(err, &tl):
			if tl.Size <= max || tl.Size != binary.BigEndian.Uint32(data) {
				t.Fatalf("FrameTooLargeError %+v for %x", tl, data[:4])
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// FuzzDecodeRequest: the server's decode and validation path (parseRequest,
// then a handler's DecodeParams) never panics, only answers BAD_REQUEST or
// UNSUPPORTED_VERSION, and accepts exactly what it can re-encode.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte{0x83, 0xa1, 'v', 0x01, 0xa2, 'i', 'd', 0x01, 0xa6, 'm', 'e', 't', 'h', 'o', 'd', 0xa5, 'h', 'e', 'l', 'l', 'o'})
	f.Fuzz(func(t *testing.T, data []byte) {
		req, id, perr := parseRequest(data)
		if perr != nil {
			if perr.Code != CodeBadRequest && perr.Code != CodeUnsupportedVersion {
				t.Fatalf("code %s", perr.Code)
			}
			if perr.Message == "" {
				t.Fatal("empty message")
			}
			var v any
			_ = unmarshal(data, &v) // the client-side decoder must not panic either
			return
		}
		if req.V != ProtocolVersion || req.Method == "" || req.ID != id {
			t.Fatalf("accepted %+v", req)
		}
		var p struct {
			Text  string         `msgpack:"text"`
			Count uint8          `msgpack:"count"`
			Tags  []string       `msgpack:"tags"`
			Extra map[string]any `msgpack:"extra"`
		}
		_ = req.DecodeParams(&p)
		var m map[string]any
		_ = req.DecodeParams(&m)
		var sp SubscribeParams
		_ = req.DecodeParams(&sp)

		// Round trip: what was accepted, re-encoded, is accepted the same.
		again, err := marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		req2, _, perr := parseRequest(again)
		if perr != nil || req2.ID != req.ID || req2.Method != req.Method || !bytes.Equal(req2.Params, req.Params) {
			t.Fatalf("round trip of %+v: %+v %v", req, req2, perr)
		}
	})
}
