package ipc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// DefaultMaxFrame is the largest frame body (1 MiB) a server accepts and
// sends unless configured otherwise. Clients must accept frames this large.
const DefaultMaxFrame = 1 << 20

// frameHeaderLen is the size of the big-endian length prefix.
const frameHeaderLen = 4

// eagerAlloc is the body size up to which ReadFrame allocates the whole body
// at once. Larger bodies grow as bytes actually arrive, so a peer that
// announces a large frame and then sends nothing costs us nothing.
const eagerAlloc = 64 << 10

// ErrEmptyFrame is returned by ReadFrame for a frame whose length prefix is
// zero. No msgpack value is zero bytes long, so a zero length means the
// stream is out of sync; the server closes the connection.
var ErrEmptyFrame = errors.New("ipc: empty frame (length prefix 0)")

// FrameTooLargeError is returned by ReadFrame when the length prefix exceeds
// the limit. The body has not been read (nor allocated), so the stream is out
// of sync and the connection must be closed.
type FrameTooLargeError struct {
	Size uint32 // the announced body length
	Max  int    // the limit in force
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("ipc: frame of %d bytes exceeds the limit of %d bytes", e.Size, e.Max)
}

// WriteFrame encodes v as msgpack and writes it to w as one frame: a 4-byte
// big-endian length, then the body. The frame goes out in a single Write so
// that concurrent writers on a shared stream (each with its own lock) never
// interleave partial frames, and so that a frame is one syscall.
func WriteFrame(w io.Writer, v any) error {
	eb := getEncBuf()
	defer putEncBuf(eb)
	if err := eb.frame(v); err != nil {
		return err
	}
	if _, err := w.Write(eb.buf.Bytes()); err != nil {
		return fmt.Errorf("ipc: write frame: %w", err)
	}
	return nil
}

// ReadFrame reads one frame from r and returns its body (one msgpack value,
// not yet decoded). max <= 0 means DefaultMaxFrame.
//
// The length is checked before anything is allocated: 0 gives ErrEmptyFrame,
// more than max gives *FrameTooLargeError. A stream that ends between frames
// gives io.EOF; one that ends inside a frame gives io.ErrUnexpectedEOF.
// Other read errors (deadlines, resets) are returned as they are.
func ReadFrame(r io.Reader, max int) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	var hdr [frameHeaderLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err // io.EOF before the first byte, io.ErrUnexpectedEOF after
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 {
		return nil, ErrEmptyFrame
	}
	if uint64(n) > uint64(max) {
		return nil, &FrameTooLargeError{Size: n, Max: max}
	}
	if n <= eagerAlloc {
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, eofIsUnexpected(err)
		}
		return body, nil
	}
	var buf bytes.Buffer
	buf.Grow(eagerAlloc)
	got, err := io.CopyN(&buf, r, int64(n))
	if got < int64(n) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf.Bytes(), nil
}

func eofIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// appendFrameHeader turns b, which starts with frameHeaderLen reserved bytes,
// into a complete frame by filling in the body length.
func fillFrameHeader(b []byte) error {
	n := len(b) - frameHeaderLen
	if n <= 0 {
		return errors.New("ipc: refusing to write an empty frame")
	}
	if uint64(n) > math.MaxUint32 {
		return fmt.Errorf("ipc: value of %d bytes does not fit in a frame", n)
	}
	binary.BigEndian.PutUint32(b[:frameHeaderLen], uint32(n))
	return nil
}
