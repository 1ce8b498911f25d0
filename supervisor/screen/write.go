package screen

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi/parser"
)

// strKind is the control string being collected by the front end.
type strKind uint8

const (
	strNone strKind = iota
	strOSC
	strDCS
	strAPC
	strPM
	strSOS
)

// maxString bounds a collected OSC payload. Codex puts the whole last
// assistant message in an OSC 9 notification, so titles alone would not
// need this much; longer payloads are cut, never buffered without bound.
const maxString = 64 << 10

// Write feeds output bytes of the child to the screen. It never blocks,
// never answers anything and never panics: any byte sequence is accepted,
// and sequences split across calls are reassembled.
//
// The byte front end is ours and the escape-sequence state machine is
// charmbracelet/x/ansi's Parser. The split exists because that parser
// treats bytes 0x80-0x9F as C1 controls everywhere, which breaks UTF-8:
// the title "✳ Claude Code" holds the byte 0x9C (8-bit ST) and would end
// its own OSC. Like tmux in UTF-8 mode, we decode UTF-8 ourselves in the
// ground state, collect control strings (OSC, DCS, APC, PM, SOS) ourselves
// up to BEL or ESC \, ignore bytes >= 0x80 inside escape sequences, and
// give the parser only 7-bit bytes, so its C1 and UTF-8 paths never run.
func (s *Screen) Write(p []byte) {
	base := s.offset
	for i := 0; i < len(p); {
		b := p[i]
		if s.str != strNone {
			i += s.feedString(p[i:], base+int64(i))
			continue
		}
		if s.utf8need > 0 {
			if b >= 0x80 && b < 0xc0 {
				s.utf8buf[s.utf8n] = b
				s.utf8n++
				i++
				if s.utf8n == s.utf8need {
					s.utf8need = 0
					r, size := utf8.DecodeRune(s.utf8buf[:s.utf8n])
					if r != utf8.RuneError || size > 1 {
						s.at = base + int64(i)
						s.print(r)
					}
				}
				continue
			}
			// A truncated sequence is dropped, as tmux does; the byte that
			// cut it is handled normally.
			s.utf8need = 0
		}
		if s.p.State() == parser.GroundState {
			switch {
			case b >= 0x20 && b < 0x7f:
				j := i + 1
				for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
					j++
				}
				s.at = base + int64(j)
				s.printASCII(p[i:j])
				i = j
				continue
			case b >= 0x80:
				s.utf8Start(b)
				i++
				continue
			}
		} else if b >= 0x80 {
			// 8-bit bytes inside an escape sequence mean nothing in UTF-8
			// mode; skipping them keeps the parser 7-bit.
			i++
			continue
		}
		i++
		s.at = base + int64(i)
		if b < 0x20 && b != 0x18 && b != 0x1a && b != 0x1b && midSequence(s.p.State()) {
			// A C0 control inside an ESC or CSI sequence is executed and
			// the sequence goes on, as in tmux and xterm. The parser would
			// execute it too but overwrite the prefix and intermediate it
			// had collected ("ESC [ ? NUL 1 h" would set mode 1, not
			// DECCKM), so it never sees the byte (FuzzResync found this:
			// the mode scanner keeps them).
			s.execute(b)
			continue
		}
		s.p.Advance(b)
		switch s.p.State() {
		case parser.OscStringState:
			s.beginString(strOSC)
		case parser.DcsStringState:
			s.beginString(strDCS)
		case parser.ApcStringState:
			s.beginString(strAPC)
		case parser.PmStringState:
			s.beginString(strPM)
		case parser.SosStringState:
			s.beginString(strSOS)
		}
	}
	s.offset = base + int64(len(p))
}

// midSequence reports whether the parser is inside an ESC or CSI
// sequence whose collected prefix and intermediate a C0 control must not
// reset.
func midSequence(st parser.State) bool {
	switch st {
	case parser.EscapeState, parser.EscapeIntermediateState,
		parser.CsiEntryState, parser.CsiParamState, parser.CsiIntermediateState:
		return true
	}
	return false
}

// utf8Start begins a multi-byte rune. Bytes that cannot start one (stray
// continuation bytes, C1 bytes, 0xF5-0xFF) are dropped, as tmux drops them.
func (s *Screen) utf8Start(b byte) {
	var need int
	switch {
	case b >= 0xc2 && b <= 0xdf:
		need = 2
	case b >= 0xe0 && b <= 0xef:
		need = 3
	case b >= 0xf0 && b <= 0xf4:
		need = 4
	default:
		return
	}
	s.utf8buf[0] = b
	s.utf8n, s.utf8need = 1, need
}

// beginString takes a control string over from the parser, which goes back
// to the ground state; feedString collects the payload.
func (s *Screen) beginString(k strKind) {
	s.p.Reset()
	s.str = k
	s.strBuf = s.strBuf[:0]
	s.strEsc = false
}

// feedString consumes control-string bytes from p and returns how many it
// used. BEL ends an OSC; ESC \ ends any string; ESC followed by anything
// else ends it too and that ESC starts a new sequence (xterm, tmux); CAN
// and SUB abort it. Inside DCS, ESC ESC is a literal ESC (tmux
// passthrough). Only OSC payloads are kept: the others are probes and
// images that the real terminal handles.
func (s *Screen) feedString(p []byte, base int64) int {
	for i, b := range p {
		if s.strEsc {
			s.strEsc = false
			if b == '\\' {
				s.at = base + int64(i) + 1
				s.endString()
				return i + 1
			}
			if b == 0x1b && s.str == strDCS {
				continue
			}
			s.at = base + int64(i)
			s.endString()
			// Re-enter the escape the string was cut by; the current byte
			// is left for the main loop to handle.
			s.p.Advance(0x1b)
			return i
		}
		switch b {
		case 0x1b:
			s.strEsc = true
			continue
		case 0x07:
			if s.str == strOSC {
				s.at = base + int64(i) + 1
				s.endString()
				return i + 1
			}
		case 0x18, 0x1a:
			s.str = strNone
			s.strBuf = s.strBuf[:0]
			return i + 1
		}
		if s.str == strOSC && len(s.strBuf) < maxString {
			s.strBuf = append(s.strBuf, b)
		}
	}
	return len(p)
}

// endString dispatches the collected string and returns to ground.
func (s *Screen) endString() {
	if s.str == strOSC {
		s.osc(s.strBuf)
	}
	s.str = strNone
	if cap(s.strBuf) > 4096 {
		s.strBuf = nil // do not keep a 64 KiB notification's buffer around
	} else {
		s.strBuf = s.strBuf[:0]
	}
}

// resetParser forgets any half-read sequence. Model calls it after dropping
// bytes: what follows a gap must not be read as the tail of what preceded
// it.
func (s *Screen) resetParser() {
	s.p.Reset()
	s.utf8need = 0
	s.str = strNone
	s.strBuf = s.strBuf[:0]
	s.strEsc = false
}
