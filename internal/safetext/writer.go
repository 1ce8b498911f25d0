package safetext

import (
	"bytes"
	"io"
)

// Writer passes text through to W one line at a time, each line a Field:
// for a stream another host or program writes to the operator's terminal
// (a remote sup's output through ssh). Close writes a last unfinished line.
type Writer struct {
	W   io.Writer
	buf []byte
}

// Write buffers p and writes its complete lines.
func (w *Writer) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		if _, err := io.WriteString(w.W, Field(string(w.buf[:i]))+"\n"); err != nil {
			return len(p), err
		}
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 4*MaxField { // a line without end: show its start, drop the rest
		if _, err := io.WriteString(w.W, Field(string(w.buf))+"\n"); err != nil {
			return len(p), err
		}
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

// Close writes what is left, as a line.
func (w *Writer) Close() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := io.WriteString(w.W, Field(string(w.buf))+"\n")
	w.buf = nil
	return err
}
