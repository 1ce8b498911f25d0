package paneinput

import (
	"bytes"

	"github.com/charmbracelet/x/ansi"
)

// escape tokenizes the sequence at the start of b (b[0] is ESC) and returns
// its length, or 0 to hold b until more bytes come.
//
// ESC's second byte is dispatched here, not by ansi.DecodeSequence, because
// input differs from output there: ESC followed by a key is Alt+key (the
// output parser would wait for an ESC sequence's final byte after
// ESC SP, or take ESC O as a complete sequence where input means SS3).
func (t *Tokenizer) escape(b []byte, final bool) int {
	if len(b) < 2 {
		if final {
			return t.altKey(b, final)
		}
		return 0
	}
	switch b[1] {
	case '[', ']', 'P', '_', 'X', '^':
		return t.sequence(b, final)
	case 'O':
		return t.ss3(b, final)
	}
	return t.altKey(b, final)
}

// ss3 is an SS3 key (ESC O A: an arrow or F1-F4 in application mode).
func (t *Tokenizer) ss3(b []byte, final bool) int {
	switch {
	case len(b) < 3 && !final:
		return 0
	case len(b) >= 3 && b[2] >= 0x40 && b[2] <= 0x7e:
		t.emit(Key, "", b[:3])
		return 3
	}
	return t.altKey(b, final) // Alt+O
}

// sequence tokenizes a CSI (decoded by ansi.DecodeSequence) or an OSC,
// DCS, APC, SOS or PM string (ended by stringEnd).
func (t *Tokenizer) sequence(b []byte, final bool) int {
	if b[1] != '[' {
		return t.str(b, final)
	}
	seq, _, n, state := ansi.DecodeSequence(b, ansi.NormalState, nil)
	if state != ansi.NormalState {
		switch {
		case final:
			return t.altKey(b, final)
		case len(b) > MaxHeld:
			return t.altKey(b, true)
		}
		return 0
	}
	if bytes.Equal(seq, []byte("\x1b[M")) {
		// X10 mouse: three raw bytes (button, column, row + 32) follow,
		// which no parser of escape sequences knows to collect. (UTF-8
		// coordinates, mode 1005, are not decoded: their extra bytes
		// become keys. The agents ask for SGR, 1006.)
		if len(b) < 6 {
			if final {
				return t.altKey(b, final)
			}
			return 0
		}
		t.emit(Mouse, "X10", b[:6])
		return 6
	}
	kind, name := t.csiKind(seq)
	if kind == Paste && name == "start" {
		t.stream = stream{kind: Paste}
		return t.pasteBody(b, n, final)
	}
	t.emit(kind, name, seq)
	return n
}

// str tokenizes a string sequence: a Report named by its start.
func (t *Tokenizer) str(b []byte, final bool) int {
	n, done := stringEnd(b, 2, b[1] == ']', final)
	switch {
	case done:
		t.emit(Report, t.stringName(b[:n]), b[:n])
		return n
	case final:
		return t.altKey(b, final)
	case len(b) > MaxHeld:
		return t.startString(b, n)
	}
	return 0
}

// maxSeparators keeps ansi.DecodeSequence within its parameter array
// (parser.MaxParamsSize, 32): v0.11.9 indexes past it and panics on a CSI
// with more parameters. No key or report has that many.
const maxSeparators = 30

// decode returns the command and parameters of a CSI or DCS, and false
// (and no command) when it has too many parameters to decode.
func (t *Tokenizer) decode(seq []byte) (ansi.Cmd, ansi.Params, bool) {
	seps := 0
	for _, c := range seq[2:] {
		if c >= 0x40 && c <= 0x7e { // the final byte: parameters end
			break
		}
		if c == ';' || c == ':' {
			seps++
		}
	}
	if seps > maxSeparators {
		return 0, nil, false
	}
	ansi.DecodeSequence(seq, ansi.NormalState, t.p)
	return ansi.Cmd(t.p.Command()), t.p.Params(), true
}

// csiKind classifies a complete CSI. A paste start is (Paste, "start").
func (t *Tokenizer) csiKind(seq []byte) (Kind, string) {
	cmd, params, ok := t.decode(seq)
	if !ok {
		return Report, NameCSI
	}
	prefix, inter, fin := cmd.Prefix(), cmd.Intermediate(), cmd.Final()
	first := -1
	if len(params) > 0 {
		first = params[0].Param(-1)
	}
	plain := prefix == 0 && inter == 0
	switch {
	case fin == 0:
		return Key, "" // not a valid CSI: Alt+[ and what followed
	case plain && len(params) == 0 && fin == 'I':
		return Focus, NameFocusIn
	case plain && len(params) == 0 && fin == 'O':
		return Focus, NameFocusOut
	case prefix == '<' && (fin == 'M' || fin == 'm'):
		return Mouse, "SGR"
	case plain && fin == 'M' && len(params) == 3:
		return Mouse, "URXVT"
	case plain && fin == '~' && first == 200:
		return Paste, "start"
	case plain && fin == '~' && first == 201:
		return Paste, "" // an end without a start: still pasted bytes
	case fin == 'c' && prefix == '?':
		return Report, NameDA1
	case fin == 'c' && prefix == '>':
		return Report, NameDA2
	case fin == 'R' && prefix == '?':
		return Report, NameDECXCPR
	case fin == 'R' && plain:
		// CSI 1;mod R is also Shift/Ctrl/Alt+F3 in xterm's legacy
		// encoding. Taking it for a cursor report only misses a rare key;
		// the opposite makes every cursor report look like typing.
		return Report, NameCPR
	case fin == 'n' && inter == 0:
		return Report, NameDSR
	case fin == 'y' && inter == '$':
		return Report, NameDECRQM
	case fin == 'u' && prefix == '?':
		return Report, NameKittyFlags
	case fin == 't' && plain:
		return Report, NameWinOps
	case fin == 'S' && prefix == '?':
		return Report, NameXTSMGRAPHICS
	case !plain:
		// Keys carry no private prefix or intermediate (SGR mouse aside):
		// anything else with one is a reply this list does not name.
		return Report, NameCSI + string(rune(prefix)) + string(rune(fin))
	}
	return Key, "" // arrows, function keys, kitty CSI u key events
}

// stringName names an OSC, DCS, APC, SOS or PM reply from its start.
func (t *Tokenizer) stringName(seq []byte) string {
	switch seq[1] {
	case ']':
		// The OSC number, from its leading digits (at most five, so a
		// string streamed in pieces is named as it would be whole).
		d := 2
		for d < len(seq) && d < 7 && seq[d] >= '0' && seq[d] <= '9' {
			d++
		}
		return NameOSC + string(seq[2:d])
	case 'P':
		cmd, _, _ := t.decode(seq)
		switch {
		case cmd.Intermediate() == '!' && cmd.Final() == '|':
			return NameDA3
		case cmd.Prefix() == '>' && cmd.Final() == '|':
			return NameXTVERSION
		case cmd.Intermediate() == '$' && cmd.Final() == 'r':
			return NameDECRPSS
		case cmd.Intermediate() == '+' && cmd.Final() == 'r':
			return NameXTGETTCAP
		}
		return NameDCS
	case '_':
		return NameAPC
	}
	return NameString
}
