package screen

import (
	"bytes"
	"strconv"
	"strings"
)

// A modeScan follows the output stream for the state a gap must not lose
// (specs/screen.md, "Resync after a gap"): the terminal modes that change
// how the screen is drawn or how the program wants its input (alternate
// screen, bracketed paste, cursor keys, autowrap, origin, insert, cursor
// visibility, focus and mouse reporting, synchronized output) and the
// OSC 0/2 title and OSC 7501 state the classifier reads. It reads every
// byte Feed is given, dropped or not, in stream order, on the pump's
// goroutine: a search for ESC and, at each, a few states, with no
// allocation on the way. It is a second reading of the escape syntax, kept
// to the Screen's rules (Write, feedString): ESC restarts a sequence
// anywhere, CAN and SUB abort one, C0 controls inside one execute without
// ending it, bytes >= 0x80 inside one are skipped, a control string ends
// at ESC \ (or BEL for OSC, or ESC and any other byte, which then starts a
// sequence) and ESC ESC inside a DCS is literal. FuzzResync holds it to
// the Screen.
type modeScan struct {
	scanMark
	osc    []byte
	oscCut bool // the OSC payload outgrew maxScanOSC: not carried
}

// scanMark is the scanner at one point of the stream, by value (no
// allocation): each queued chunk keeps the mark at its end, and a gap the
// mark at the end of the last chunk it replaced.
type scanMark struct {
	scanPos
	state streamState
}

// scanPos is where the scanner is in the escape syntax.
type scanPos struct {
	st     scanState
	str    strKind // which control string (st == scanStr or scanStrEsc)
	prefix byte    // CSI private marker ('?', '>', '<', '=') or 0
	inter  byte    // the last intermediate byte of an ESC or CSI sequence
	np     uint8   // params collected (the one in progress included)
	cur    bool    // a parameter is in progress (np counts it)
	entry  bool    // nothing read since CSI's '[' (a private marker may come)
	params [maxScanParams]uint16
}

// streamState is what a gap carries: the state as of the last byte the
// scanner read.
type streamState struct {
	modes      modes
	title      string
	agentState string
	// saved is DECSC's origin mode (the one saved-cursor field a later
	// DECRC turns back into a tracked mode); savedSet says a save stands.
	savedSet, savedOrigin bool
}

// scanState is where the scanner is in the escape syntax.
type scanState uint8

const (
	scanGround scanState = iota
	scanEsc
	scanEscInter
	scanCSI // entry, parameters and intermediates (inter != 0)
	scanDCSEntry
	scanDCSParam
	scanDCSInter
	scanStr
	scanStrEsc
)

// maxScanParams is the CSI parameters read (the Screen's parser keeps 32;
// later ones are ignored by both). maxScanOSC bounds a carried OSC payload.
const (
	maxScanParams = 32
	maxScanOSC    = 4 << 10
)

// modes is a set of the tracked terminal modes, one bit each.
type modes uint32

const (
	modeCursorKeys modes = 1 << iota // ?1 DECCKM
	modeOrigin                       // ?6 DECOM
	modeAutowrap                     // ?7 DECAWM
	modeCursor                       // ?25 DECTCEM
	modeAlt                          // ?47, ?1047, ?1049
	modeFocus                        // ?1004
	modePaste                        // ?2004
	modeSync                         // ?2026
	modeInsert                       // SM 4 (IRM)
	modeMouseFirst                   // the mouse modes follow, in mouseModeOrder
)

// mouseModeOrder lists the mouse modes in their bit order after
// modeMouseFirst.
var mouseModeOrder = [...]int{9, 1000, 1001, 1002, 1003, 1005, 1006, 1015, 1016}

// defaultModes are a fresh screen's: autowrap on, cursor shown.
const defaultModes = modeAutowrap | modeCursor

// privateModeBit maps a DECSET mode number to its bit (0: untracked).
func privateModeBit(n int) modes {
	switch n {
	case 1:
		return modeCursorKeys
	case 6:
		return modeOrigin
	case 7:
		return modeAutowrap
	case 25:
		return modeCursor
	case 47, 1047, 1049:
		return modeAlt
	case 1004:
		return modeFocus
	case 2004:
		return modePaste
	case 2026:
		return modeSync
	}
	for i, m := range mouseModeOrder {
		if m == n {
			return modeMouseFirst << i
		}
	}
	return 0
}

func newModeScan() modeScan {
	return modeScan{scanMark: scanMark{state: streamState{modes: defaultModes}}}
}

// feed reads p.
func (ms *modeScan) feed(p []byte) {
	for i := 0; i < len(p); i++ {
		if ms.st == scanGround {
			// The fast path: text until the next ESC.
			j := bytes.IndexByte(p[i:], 0x1b) // vectorised
			if j < 0 {
				return
			}
			i += j
		}
		ms.step(p[i])
	}
}

// step reads one byte.
func (ms *modeScan) step(b byte) {
	switch ms.st {
	case scanStr:
		switch {
		case b == 0x1b:
			ms.st = scanStrEsc
		case b == 0x07 && ms.str == strOSC:
			ms.endString()
		case b == 0x18 || b == 0x1a:
			ms.st, ms.osc = scanGround, ms.osc[:0]
		case ms.str == strOSC:
			if len(ms.osc) < maxScanOSC {
				ms.osc = append(ms.osc, b)
			} else {
				ms.oscCut = true
			}
		}
		return
	case scanStrEsc:
		switch {
		case b == '\\':
			ms.endString()
		case b == 0x1b && ms.str == strDCS:
			ms.st = scanStr
		default:
			ms.endString()
			ms.st = scanEsc // the ESC that cut the string starts a sequence
			ms.inter = 0
			ms.step(b)
		}
		return
	}
	if ms.st == scanDCSEntry && (b == 0x1b || (b >= 0x08 && b <= 0x0d)) {
		ms.beginString(strDCS) // the parser's rule (ECMA-48 § 8.3.27)
		return
	}
	switch {
	case b == 0x1b:
		ms.st, ms.inter = scanEsc, 0
		return
	case b == 0x18 || b == 0x1a:
		ms.st = scanGround
		return
	case b < 0x20 || b >= 0x7f:
		return // C0 executes inside a sequence; DEL and 8-bit bytes are skipped
	}
	switch ms.st {
	case scanEsc:
		switch {
		case b == '[':
			ms.st, ms.prefix, ms.inter, ms.np, ms.cur, ms.entry = scanCSI, 0, 0, 0, false, true
		case b == ']':
			ms.beginString(strOSC)
		case b == 'P':
			ms.st = scanDCSEntry
		case b == 'X':
			ms.beginString(strSOS)
		case b == '^':
			ms.beginString(strPM)
		case b == '_':
			ms.beginString(strAPC)
		case b >= 0x20 && b < 0x30:
			ms.st, ms.inter = scanEscInter, b
		case b == 'c':
			ms.fullReset()
			ms.st = scanGround
		case b == '7': // DECSC
			ms.saveCursor()
			ms.st = scanGround
		case b == '8': // DECRC
			ms.restoreCursor()
			ms.st = scanGround
		default:
			ms.st = scanGround
		}
	case scanEscInter:
		if b >= 0x20 && b < 0x30 {
			ms.inter = b
			return
		}
		if ms.inter == '#' && b == '8' { // DECALN
			ms.state.modes &^= modeOrigin
		}
		ms.st = scanGround
	case scanDCSEntry, scanDCSParam, scanDCSInter:
		switch {
		case b >= 0x40, b >= 0x30 && ms.st == scanDCSInter:
			ms.beginString(strDCS)
		case b >= 0x30:
			ms.st = scanDCSParam
		default:
			ms.st = scanDCSInter
		}
	case scanCSI:
		ms.csiByte(b)
	}
}

// csiByte reads a byte of a CSI sequence, by the parser's table: a
// private marker only first (later ones are ignored), parameters until an
// intermediate, and a parameter byte after an intermediate ends the
// sequence undispatched.
func (ms *modeScan) csiByte(b byte) {
	entry := ms.entry
	ms.entry = false
	switch {
	case b >= 0x30 && b <= 0x3f && ms.inter != 0:
		ms.st = scanGround
	case b >= '0' && b <= '9':
		if !ms.cur {
			if int(ms.np) == maxScanParams {
				return
			}
			ms.params[ms.np] = 0
			ms.np++
			ms.cur = true
		}
		v := int(ms.params[ms.np-1])*10 + int(b-'0')
		ms.params[ms.np-1] = uint16(min(v, 0xffff))
	case b == ';' || b == ':':
		if !ms.cur && int(ms.np) < maxScanParams {
			ms.params[ms.np] = 0 // an empty parameter
			ms.np++
		}
		ms.cur = false
	case b >= '<' && b <= '?':
		if entry {
			ms.prefix = b
		}
	case b >= 0x20 && b < 0x30:
		ms.inter = b
	default: // the final byte
		ms.st = scanGround
		if ms.inter != 0 {
			return
		}
		if ms.prefix == 0 && ms.np == 0 && (b == 's' || b == 'u') { // SCOSC, SCORC
			if b == 's' {
				ms.saveCursor()
			} else {
				ms.restoreCursor()
			}
			return
		}
		if b != 'h' && b != 'l' {
			return
		}
		on := b == 'h'
		for i := range int(ms.np) {
			n := int(ms.params[i])
			var bit modes
			switch ms.prefix {
			case '?':
				bit = privateModeBit(n)
			case 0:
				if n == 4 {
					bit = modeInsert
				}
			}
			if on {
				ms.state.modes |= bit
			} else {
				ms.state.modes &^= bit
			}
		}
	}
}

func (ms *modeScan) beginString(k strKind) {
	ms.st, ms.str = scanStr, k
	ms.osc, ms.oscCut = ms.osc[:0], false
}

// endString ends a control string; an OSC title or state is kept.
func (ms *modeScan) endString() {
	ms.st = scanGround
	if ms.str != strOSC || ms.oscCut {
		return
	}
	num, rest, _ := bytes.Cut(ms.osc, []byte{';'})
	switch string(num) { // no allocation: a switch on a converted []byte
	case "0", "2":
		if t := text(rest); t != ms.state.title {
			ms.state.title = t
		}
	case "7501":
		if v := text(rest); v != "?" && v != "" {
			ms.state.agentState = v
		}
	}
	if cap(ms.osc) > 1024 {
		ms.osc = nil
	}
}

// fullReset is RIS as the Screen does it (fullReset): every mode to its
// default but the alternate screen, which RIS leaves as it is in tmux.
func (ms *modeScan) fullReset() {
	ms.state.modes = defaultModes | ms.state.modes&modeAlt
	ms.state.savedSet, ms.state.savedOrigin = false, false
}

// saveCursor is DECSC as far as a tracked mode goes: it saves origin mode.
func (ms *modeScan) saveCursor() {
	ms.state.savedSet, ms.state.savedOrigin = true, ms.state.modes&modeOrigin != 0
}

// restoreCursor is DECRC: origin mode comes back as saved, or off when
// nothing was (the Screen's restoreCursor).
func (ms *modeScan) restoreCursor() {
	ms.state.modes &^= modeOrigin
	if ms.state.savedSet && ms.state.savedOrigin {
		ms.state.modes |= modeOrigin
	}
}

// prime returns bytes that put a freshly reset parser where the scanner
// is: a sequence cut by the end of a dropped run is completed by the bytes
// after the gap. A control string's payload so far is not repeated (an
// OSC cut there is read from its tail, and means nothing).
func (ms scanPos) prime() []byte {
	switch ms.st {
	case scanEsc:
		return []byte("\x1b")
	case scanEscInter:
		return []byte{0x1b, ms.inter}
	case scanCSI:
		var b strings.Builder
		b.WriteString("\x1b[")
		if ms.prefix != 0 {
			b.WriteByte(ms.prefix)
		}
		for i := range int(ms.np) {
			if i > 0 {
				b.WriteByte(';')
			}
			if ms.params[i] != 0 || (ms.cur && i == int(ms.np)-1) {
				b.WriteString(strconv.Itoa(int(ms.params[i])))
			}
		}
		if ms.np > 0 && !ms.cur {
			b.WriteByte(';')
		}
		if ms.inter != 0 {
			b.WriteByte(ms.inter)
		}
		return []byte(b.String())
	case scanDCSEntry:
		return []byte("\x1bP")
	case scanDCSParam:
		return []byte("\x1bP0")
	case scanDCSInter:
		return []byte("\x1bP ")
	case scanStr, scanStrEsc:
		intro := map[strKind]string{strOSC: "\x1b]", strDCS: "\x1bPq", strAPC: "\x1b_", strPM: "\x1b^", strSOS: "\x1bX"}[ms.str]
		if ms.st == scanStrEsc {
			intro += "\x1b"
		}
		return []byte(intro)
	}
	return nil
}

// replay returns the bytes that set a screen's tracked state to st: the
// alternate screen first (entering it clears it), then every mode off
// that is off and on that is on, then the title and agent state.
func (st streamState) replay() []byte {
	var b strings.Builder
	if st.modes&modeAlt != 0 {
		b.WriteString("\x1b[?1049h")
	} else {
		b.WriteString("\x1b[?1049l")
	}
	var on, off []string
	for _, n := range [...]int{1, 6, 7, 25, 1004, 2004, 2026} {
		if st.modes&privateModeBit(n) != 0 {
			on = append(on, strconv.Itoa(n))
		} else {
			off = append(off, strconv.Itoa(n))
		}
	}
	for _, n := range mouseModeOrder {
		if st.modes&privateModeBit(n) != 0 {
			on = append(on, strconv.Itoa(n))
		} else {
			off = append(off, strconv.Itoa(n))
		}
	}
	b.WriteString("\x1b[?" + strings.Join(off, ";") + "l")
	if len(on) > 0 {
		b.WriteString("\x1b[?" + strings.Join(on, ";") + "h")
	}
	if st.modes&modeInsert != 0 {
		b.WriteString("\x1b[4h")
	} else {
		b.WriteString("\x1b[4l")
	}
	b.WriteString("\x1b]2;" + st.title + "\x07")
	if st.agentState != "" {
		b.WriteString("\x1b]7501;" + st.agentState + "\x07")
	}
	return []byte(b.String())
}

// resync continues the screen after gap lost bytes, which ended at mark:
// the parser forgets its half-read sequence, the modes, title and agent
// state the stream had at mark are restored, and the sequence the gap cut
// is restarted so the bytes after it complete it. The restoring bytes do
// not count as stream bytes; the caller notes s.whole after it, so that
// entering the alternate screen to restore it (its content was drawn by
// lost bytes) does not count as the screen being whole.
func (s *Screen) resync(mark *scanMark, gap int64) {
	off := s.offset + gap
	s.resetParser()
	s.Write(mark.state.replay())
	// DECSC's origin: no sequence unsets a save, so it is set directly;
	// the rest of a save (position, rendition) is drawn state, not tracked.
	if mark.state.savedSet {
		s.saved.set, s.saved.origin = true, mark.state.savedOrigin
	} else {
		s.saved = savedCursor{}
	}
	s.resetParser()
	s.Write(mark.prime())
	s.offset = off
}
