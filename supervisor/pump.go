package supervisor

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// pumpBufSize matches what a pty delivers per read on Linux (4 KiB line
// discipline buffers coalesced up to tens of KiB under load).
const pumpBufSize = 32 << 10

// copyOutput copies the child's output to the pane first, then hands the
// same bytes to tap. It stops at the first read error: EIO from a pty master
// whose slave is gone is how the end of the child's output looks on Linux.
// Write errors are ignored so a vanished pane never stalls the child.
func copyOutput(dst io.Writer, src io.Reader, tap func([]byte)) {
	buf := make([]byte, pumpBufSize)
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

// tail keeps the last bytes of output for the `screen` method until a real
// screen model replaces it. Write is a bounded copy under a mutex: cheap
// enough for the pump, which must never wait on anything slower.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	size int

	lastWrite atomic.Int64 // unix ms
}

func newTail(size int) *tail { return &tail{buf: make([]byte, 0, size), size: size} }

func (t *tail) write(p []byte) {
	t.lastWrite.Store(time.Now().UnixMilli())
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.size {
		t.buf = append(t.buf[:0], p[len(p)-t.size:]...)
		return
	}
	if over := len(t.buf) + len(p) - t.size; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
	}
	t.buf = append(t.buf, p...)
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}
