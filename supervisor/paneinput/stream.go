package paneinput

import "bytes"

// C0 controls that end a string sequence, as ansi.DecodeSequence ends it.
const (
	bel = 0x07
	can = 0x18
	sub = 0x1a
	st8 = 0x9c // 8-bit ST
)

// streamOn continues a paste or a long string sequence at the start of b.
// It returns what it consumed and whether the rest is to be held.
func (t *Tokenizer) streamOn(b []byte, final bool) (int, bool) {
	var n int
	if t.stream.kind == Paste {
		n = t.pasteBody(b, 0, final)
	} else {
		n = t.stringBody(b, final)
	}
	return n, t.stream.kind != 0 && n < len(b)
}

// pasteBody emits b up to the end of the paste (pasteEnd included) as one
// Paste token, its content scanned from b[from:] (b[:from] is the start
// marker). Without the end in b, it emits all but a tail that may begin the
// end marker, so the marker is always seen whole; final releases that tail
// too (the rest never came). It returns the bytes emitted.
func (t *Tokenizer) pasteBody(b []byte, from int, final bool) int {
	n := len(b)
	if e := bytes.Index(b[from:], pasteEnd); e >= 0 {
		n = from + e + len(pasteEnd)
		t.stream = stream{}
	} else if !final {
		n -= partialSuffix(b[from:], pasteEnd)
	}
	if n > 0 {
		t.emit(Paste, "", b[:n])
	}
	return n
}

// partialSuffix is the length of the longest tail of b that is a proper
// prefix of marker.
func partialSuffix(b, marker []byte) int {
	for k := min(len(b), len(marker)-1); k > 0; k-- {
		if bytes.Equal(b[len(b)-k:], marker[:k]) {
			return k
		}
	}
	return 0
}

// startString begins streaming a string sequence too long to hold: b is its
// start, all of it incomplete. The bytes so far are emitted as a piece,
// except a last ESC, which may begin ST.
func (t *Tokenizer) startString(b []byte) int {
	t.stream = stream{kind: Report, name: t.stringName(b), osc: b[1] == ']'}
	n := len(b)
	if b[n-1] == esc {
		n--
	}
	t.emit(Report, t.stream.name, b[:n])
	return n
}

// stringBody emits b up to the end of the string sequence being streamed,
// ending it where ansi.DecodeSequence would: after BEL (OSC only), 8-bit ST
// or ESC \, or before CAN, SUB or an ESC that does not begin ST.
func (t *Tokenizer) stringBody(b []byte, final bool) int {
	end, done := len(b), false
	for j := 0; j < len(b) && !done; j++ {
		switch c := b[j]; {
		case c == bel && t.stream.osc, c == st8:
			end, done = j+1, true
		case c == can, c == sub:
			end, done = j, true
		case c == esc && j+1 < len(b) && b[j+1] == '\\':
			end, done = j+2, true
		case c == esc && j+1 < len(b), c == esc && final:
			end, done = j, true
		case c == esc:
			end = j // may begin ST: hold it
			j = len(b)
		}
	}
	if end > 0 {
		t.emit(Report, t.stream.name, b[:end])
	}
	if done {
		t.stream = stream{}
	}
	return end
}
