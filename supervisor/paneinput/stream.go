package paneinput

import "bytes"

// C0 controls that end a string sequence.
const (
	bel = 0x07
	can = 0x18
	sub = 0x1a
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

// startString begins streaming a string sequence too long to hold: b[:n]
// is its start, all of it incomplete, emitted as the first piece.
func (t *Tokenizer) startString(b []byte, n int) int {
	t.stream = stream{kind: Report, name: t.stringName(b[:n]), osc: b[1] == ']'}
	t.emit(Report, t.stream.name, b[:n])
	return n
}

// stringBody emits b up to the end of the string sequence being streamed.
func (t *Tokenizer) stringBody(b []byte, final bool) int {
	end, done := stringEnd(b, 0, t.stream.osc, final)
	if end > 0 {
		t.emit(Report, t.stream.name, b[:end])
	}
	if done {
		t.stream = stream{}
	}
	return end
}

// stringEnd finds the end of the string sequence whose data is scanned
// from b[from:]: after BEL (OSC only) or ESC \, or before CAN, SUB or an
// ESC that does not begin ST (which cancel it, as in ansi.DecodeSequence).
// Without it, end is where the bytes that may still be the string stop:
// len(b), or before a last ESC that may begin ST (final: it does not).
//
// This is not ansi.DecodeSequence because that also ends a string at an
// 8-bit ST (0x9c), which in UTF-8 is a continuation byte (✳ is E2 9C B3):
// a reply carrying a window title would end early and its rest would look
// like typing.
func stringEnd(b []byte, from int, osc, final bool) (end int, done bool) {
	for j := from; j < len(b); j++ {
		switch c := b[j]; {
		case c == bel && osc:
			return j + 1, true
		case c == can, c == sub:
			return j, true
		case c == esc && j+1 < len(b) && b[j+1] == '\\':
			return j + 2, true
		case c == esc && (j+1 < len(b) || final):
			return j, true
		case c == esc:
			return j, false // may begin ST
		}
	}
	return len(b), false
}
