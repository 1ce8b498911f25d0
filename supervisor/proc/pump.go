//go:build linux

package proc

import "io"

// PumpBufSize matches what a pty delivers per read on Linux (4 KiB line
// discipline buffers coalesced up to tens of KiB under load).
const PumpBufSize = 32 << 10

// CopyOutput copies the child's output to the pane first, then hands the
// same bytes to tap. It stops at the first read error: EIO from a pty master
// whose slave is gone is how the end of the child's output looks on Linux.
// Write errors are ignored so a vanished pane never stalls the child.
func CopyOutput(dst io.Writer, src io.Reader, tap func([]byte)) {
	buf := make([]byte, PumpBufSize)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			dst.Write(buf[:n]) // Best effort: the pane may be gone; keep draining.
			tap(buf[:n])
		}
		if err != nil {
			return
		}
	}
}
