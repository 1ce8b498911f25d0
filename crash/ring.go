package crash

// ring is a fixed-size buffer of the newest exits.
type ring struct {
	buf   []Exit
	start int // index of the oldest exit
	n     int // number of exits held
}

func newRing(size int) ring { return ring{buf: make([]Exit, size)} }

// add appends e, dropping the oldest exit if the buffer is full.
func (r *ring) add(e Exit) {
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = e
		r.n++
		return
	}
	r.buf[r.start] = e
	r.start = (r.start + 1) % len(r.buf)
}

// list returns a copy of the exits, oldest first.
func (r *ring) list() []Exit {
	out := make([]Exit, r.n)
	for i := range out {
		out[i] = r.buf[(r.start+i)%len(r.buf)]
	}
	return out
}

// last returns the newest exit.
func (r *ring) last() (Exit, bool) {
	if r.n == 0 {
		return Exit{}, false
	}
	return r.buf[(r.start+r.n-1)%len(r.buf)], true
}
