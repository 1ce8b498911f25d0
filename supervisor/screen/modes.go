package screen

import "github.com/charmbracelet/x/ansi"

// mouseModes is the set of mouse modes the application turned on.
type mouseModes uint16

// MouseMode bits, one per xterm mode number. The tracking modes (X10,
// normal, highlight, button-event, any-event) make the terminal report
// clicks; the encodings (UTF-8, SGR, urxvt, SGR-pixels) only change how.
const (
	mouseX10       mouseModes = 1 << iota // ?9
	mouseNormal                           // ?1000
	mouseHighlight                        // ?1001
	mouseButton                           // ?1002
	mouseAny                              // ?1003
	mouseUTF8                             // ?1005
	mouseSGR                              // ?1006
	mouseURXVT                            // ?1015
	mouseSGRPixels                        // ?1016

	mouseTracking = mouseX10 | mouseNormal | mouseHighlight | mouseButton | mouseAny
)

var mouseModeBits = map[int]mouseModes{
	9: mouseX10, 1000: mouseNormal, 1001: mouseHighlight, 1002: mouseButton,
	1003: mouseAny, 1005: mouseUTF8, 1006: mouseSGR, 1015: mouseURXVT, 1016: mouseSGRPixels,
}

// setANSIModes is SM / RM. Only IRM (insert mode) matters; tmux ignores
// LNM, so a line feed never returns the carriage.
func (s *Screen) setANSIModes(ps ansi.Params, on bool) {
	for i := range ps {
		if param(ps, i, 0) == 4 {
			s.insert = on
		}
	}
}

// setPrivateModes is DECSET / DECRST. Modes the model has no use for
// (blinking, colour-scheme reports and the like) and those
// tmux does not implement (1048) are ignored; the ones that change the
// screen or that sup reports as signals are handled.
func (s *Screen) setPrivateModes(ps ansi.Params, on bool) {
	for i := range ps {
		mode := param(ps, i, 0)
		switch mode {
		case 1: // DECCKM: nothing drawn; kept for the keys sup types
			s.cursorKeys = on
		case 3: // DECCOLM: tmux does not resize, but clears and homes
			s.clearRows(0, s.rows)
			s.top, s.bottom = 0, s.rows-1
			s.x, s.y, s.pendingWrap = 0, 0, false
		case 6: // DECOM: the cursor goes home either way
			s.origin = on
			s.x, s.pendingWrap = 0, false
			s.y = 0
			if on {
				s.y = s.top
			}
		case 7: // DECAWM
			s.autowrap = on
			if !on {
				s.pendingWrap = false
			}
		case 25: // DECTCEM
			s.cursorVisible = on
		case 47, 1047:
			s.switchScreen(on, false)
		case 1049:
			s.switchScreen(on, true)
		case 1004:
			if s.sig.FocusReporting != on {
				s.sig.FocusReporting = on
				s.emit(SignalFocus, onOff(on))
			}
		case 2004:
			if s.sig.BracketedPaste != on {
				s.sig.BracketedPaste = on
				s.emit(SignalBracketedPaste, onOff(on))
			}
		case 2026:
			s.synchronized = on
		default:
			if bit, ok := mouseModeBits[mode]; ok {
				if on {
					s.mouse |= bit
				} else {
					s.mouse &^= bit
				}
				s.updateMouseSignal()
			}
		}
	}
}

// updateMouseSignal reports a change of "the terminal reports the mouse":
// any tracking mode on. An encoding alone (?1006h) reports nothing.
func (s *Screen) updateMouseSignal() {
	s.sig.MouseModes = s.mouseModeList()
	on := s.mouse&mouseTracking != 0
	if s.sig.MouseReporting != on {
		s.sig.MouseReporting = on
		s.emit(SignalMouse, onOff(on))
	}
}

// mouseModeList returns the mode numbers set, ascending.
func (s *Screen) mouseModeList() []int {
	if s.mouse == 0 {
		return nil
	}
	var l []int
	for _, m := range []int{9, 1000, 1001, 1002, 1003, 1005, 1006, 1015, 1016} {
		if s.mouse&mouseModeBits[m] != 0 {
			l = append(l, m)
		}
	}
	return l
}

// switchScreen enters or leaves the alternate screen, the way tmux does:
// entering clears it (for 47 and 1047 too); 1049 also saves the cursor on
// the way in and restores it on the way out. The main screen is kept
// untouched meanwhile.
func (s *Screen) switchScreen(on, cursor bool) {
	if on {
		if s.altActive {
			return
		}
		// tmux saves the rendition on every entry, the position only
		// on ?1049h (screen_alternate_on).
		s.altSaved.pen = s.pen
		if cursor {
			s.altSaved.set, s.altSaved.x, s.altSaved.y = true, s.x, s.y
		}
		s.altActive = true
		s.buf = &s.alt
		s.clearAlt()
		s.whole++
	} else {
		// ?1049l restores the last ?1049h's cursor whether or not the
		// alternate screen is on: tmux keeps it after leaving (and
		// across RIS) and restores it first (screen_alternate_off).
		if cursor && s.altSaved.set {
			sv := s.altSaved
			s.x, s.y = min(sv.x, s.cols-1), min(sv.y, s.rows-1)
			s.pendingWrap = false
			s.pen = sv.pen
		}
		if !s.altActive {
			return
		}
		s.altActive = false
		s.buf = &s.main
	}
	s.sig.AltScreen = on
	s.emit(SignalAltScreen, onOff(on))
}

// clearAlt blanks the alternate screen with the default background,
// allocating it the first time.
func (s *Screen) clearAlt() {
	if s.alt.lines == nil {
		s.alt.lines = newLines(s.cols, s.rows)
		return
	}
	b := blankCell(colorDefault)
	for y := range s.alt.lines {
		fillCells(s.alt.lines[y].cells, b)
		s.alt.lines[y].wrapped = false
	}
}

// setSignalModes reports every mode signal off after a reset.
func (s *Screen) setSignalModes() {
	if s.sig.BracketedPaste {
		s.sig.BracketedPaste = false
		s.emit(SignalBracketedPaste, "off")
	}
	if s.sig.FocusReporting {
		s.sig.FocusReporting = false
		s.emit(SignalFocus, "off")
	}
	s.updateMouseSignal()
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
