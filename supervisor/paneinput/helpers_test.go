package paneinput

import (
	"bytes"
	"time"
)

var t0 = time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)

// tok is a token with its own copy of Raw, comparable in tests.
type tok struct {
	Kind Kind
	Name string
	Raw  string
}

func own(ts []Token) []tok {
	out := make([]tok, 0, len(ts))
	for _, t := range ts {
		out = append(out, tok{t.Kind, t.Name, string(t.Raw)})
	}
	return out
}

// feedAll feeds the chunks at one instant, then releases what is held
// long after: the tokens of the whole input.
func feedAll(chunks ...[]byte) []tok {
	tz := New(0)
	var out []tok
	for _, c := range chunks {
		out = append(out, own(tz.Feed(c, t0))...)
	}
	return append(out, own(tz.Flush(t0.Add(time.Hour)))...)
}

// merged joins adjacent pieces of pastes and of streamed string reports,
// which come in as many pieces as the reads that carried them.
func merged(ts []tok) []tok {
	var out []tok
	for _, t := range ts {
		if n := len(out); n > 0 && out[n-1].Kind == t.Kind && out[n-1].Name == t.Name &&
			(t.Kind == Paste || t.Kind == Report) {
			out[n-1].Raw += t.Raw
			continue
		}
		out = append(out, t)
	}
	return out
}

func concat(ts []tok) []byte {
	var b bytes.Buffer
	for _, t := range ts {
		b.WriteString(t.Raw)
	}
	return b.Bytes()
}
