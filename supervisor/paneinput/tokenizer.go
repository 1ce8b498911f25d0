package paneinput

import (
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// DefaultTimeout is how long an incomplete sequence is held after its last
// byte before it is released as keys. tmux sends each key and each reply
// it generates in one write, so a sequence only splits at a read boundary
// and its rest follows within microseconds; a human cannot type the rest
// of a sequence this fast. It is also the delay a lone Esc key takes on its
// way to the agent.
const DefaultTimeout = 50 * time.Millisecond

// MaxHeld bounds what the tokenizer holds: an incomplete CSI or ESC
// sequence longer than this is released as keys, and a longer string
// sequence (OSC, DCS, APC) streams out in pieces as a paste does.
const MaxHeld = 8 << 10

const esc = 0x1b

// pasteEnd ends a bracketed paste.
var pasteEnd = []byte("\x1b[201~")

// Tokenizer splits the pane's input into tokens. It is not safe for
// concurrent use; the input reader owns it.
type Tokenizer struct {
	timeout time.Duration
	held    []byte    // the incomplete tail, owned
	heldAt  time.Time // when the last held byte arrived
	work    []byte    // held + the new bytes, when something was held
	toks    []Token
	p       *ansi.Parser
	stream  stream // set while inside a paste or a long string sequence
}

// stream is a paste or a long string sequence released in pieces.
type stream struct {
	kind Kind // Paste or Report; zero when not streaming
	name string
	osc  bool // BEL ends the string too
}

// New returns a tokenizer that releases an incomplete sequence as keys
// timeout after its last byte arrived; timeout <= 0 means DefaultTimeout.
func New(timeout time.Duration) *Tokenizer {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	p := ansi.NewParser()
	p.SetDataSize(16) // Only commands and parameters are looked at.
	return &Tokenizer{timeout: timeout, p: p}
}

// Feed tokenizes p, which arrived at now, and returns the tokens it
// completes, in order. Bytes that may begin a sequence still arriving are
// held (see Held and Deadline). If what was held has waited past its
// deadline, it is released as keys first: the gap shows it was typed.
// The returned slice and the tokens' Raw are valid until the next call.
func (t *Tokenizer) Feed(p []byte, now time.Time) []Token {
	t.toks = t.toks[:0]
	if len(p) == 0 {
		return t.toks
	}
	data := p
	if len(t.held) > 0 {
		t.work = append(append(t.work[:0], t.held...), p...)
		data = t.work
		if d, _ := t.Deadline(); !now.Before(d) {
			t.scan(data[:len(t.held)], true)
			data = data[len(t.held):]
		}
	}
	rest := t.scan(data, false)
	t.held = append(t.held[:0], rest...)
	t.heldAt = now
	return t.toks
}

// Flush releases what is held if its deadline has passed by now, as keys
// (a lone ESC is the Esc key), or as the rest of a paste while in one.
// The returned slice and the tokens' Raw are valid until the next call.
func (t *Tokenizer) Flush(now time.Time) []Token {
	t.toks = t.toks[:0]
	d, ok := t.Deadline()
	if !ok || now.Before(d) {
		return t.toks
	}
	t.work = append(t.work[:0], t.held...)
	t.held = t.held[:0]
	t.scan(t.work, true)
	return t.toks
}

// Deadline returns when Flush will release what is held, and false when
// nothing is held. The caller arms a timer for it after each Feed.
func (t *Tokenizer) Deadline() (time.Time, bool) {
	if len(t.held) == 0 {
		return time.Time{}, false
	}
	return t.heldAt.Add(t.timeout), true
}

// Held returns the bytes held back, waiting for the rest of a sequence.
// They belong after every token returned so far. Valid until the next call.
func (t *Tokenizer) Held() []byte { return t.held }

// InPaste reports whether a bracketed paste has begun and not yet ended.
func (t *Tokenizer) InPaste() bool { return t.stream.kind == Paste }

// scan appends the tokens of data to t.toks and returns the incomplete
// tail to hold. final means no more bytes will come for that tail (its
// deadline passed): it is released as keys instead.
func (t *Tokenizer) scan(data []byte, final bool) (rest []byte) {
	i := 0
	for i < len(data) {
		if t.stream.kind != 0 {
			n, hold := t.streamOn(data[i:], final)
			i += n
			if hold {
				return data[i:]
			}
			continue
		}
		b := data[i:]
		var n int
		if b[0] == esc {
			n = t.escape(b, final)
		} else {
			n = keyLen(b, final)
			if n > 0 {
				t.emit(Key, "", b[:n])
			}
		}
		if n == 0 {
			return b
		}
		i += n
	}
	return nil
}

func (t *Tokenizer) emit(k Kind, name string, raw []byte) {
	t.toks = append(t.toks, Token{Kind: k, Name: name, Raw: raw})
}

// keyLen is the length of the plain key (not ESC) at the start of b: one
// byte, or one UTF-8 character; 0 when a character is cut off and more may
// come. Bytes that are not UTF-8, 8-bit C1 controls included, are one key
// each: tmux and UTF-8 terminals never send C1 controls as input.
func keyLen(b []byte, final bool) int {
	if b[0] < utf8.RuneSelf {
		return 1
	}
	if !utf8.FullRune(b) && !final {
		return 0
	}
	_, n := utf8.DecodeRune(b)
	return n
}

// altKey releases ESC and the key after it as one key (Alt+key); a lone ESC
// is the Esc key. It returns 0 when that key is a cut-off character.
func (t *Tokenizer) altKey(b []byte, final bool) int {
	n := 1
	if len(b) > 1 && b[1] != esc {
		k := keyLen(b[1:], final)
		if k == 0 {
			return 0
		}
		n += k
	}
	t.emit(Key, "", b[:n])
	return n
}
