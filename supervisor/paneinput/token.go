package paneinput

import "fmt"

// Kind says what produced a token.
type Kind uint8

const (
	// Key is one keystroke: a character, a control byte, Alt+key (ESC and
	// the key), or a CSI/SS3 key sequence (arrows, function keys, kitty
	// keyboard events).
	Key Kind = iota + 1
	// Paste is a bracketed paste or a piece of one as it streams.
	Paste
	// Mouse is a mouse event (X10, SGR or urxvt encoding).
	Mouse
	// Focus is a focus-in (ESC[I) or focus-out (ESC[O) report; Name says
	// which. A human looked at or away from the pane: not typing.
	Focus
	// Report is a terminal's reply or unsolicited report; Name says which.
	Report
)

// String names the kind for logs.
func (k Kind) String() string {
	switch k {
	case Key:
		return "key"
	case Paste:
		return "paste"
	case Mouse:
		return "mouse"
	case Focus:
		return "focus"
	case Report:
		return "report"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Report names (Token.Name of a Report), for logs.
const (
	NameDA1          = "DA1"          // ESC[?…c primary device attributes
	NameDA2          = "DA2"          // ESC[>…c secondary device attributes
	NameDA3          = "DA3"          // ESC P ! | … ST tertiary device attributes
	NameDSR          = "DSR"          // ESC[0n status and other ESC[…n / ESC[?…n reports
	NameCPR          = "CPR"          // ESC[row;colR cursor position
	NameDECXCPR      = "DECXCPR"      // ESC[?row;colR extended cursor position
	NameDECRQM       = "DECRQM"       // ESC[?mode;value$y mode report (DECRPM)
	NameXTVERSION    = "XTVERSION"    // ESC P > | name ST
	NameDECRPSS      = "DECRPSS"      // ESC P 1 $ r … ST setting report
	NameXTGETTCAP    = "XTGETTCAP"    // ESC P 1 + r … ST termcap report
	NameKittyFlags   = "KITTYFLAGS"   // ESC[?flags u kitty keyboard flags
	NameWinOps       = "XTWINOPS"     // ESC[4;h;wt, ESC[8;r;ct, … window reports
	NameXTSMGRAPHICS = "XTSMGRAPHICS" // ESC[?item;status;…S graphics attributes
	NameOSC          = "OSC"          // an OSC reply; the number is appended: OSC11
	NameDCS          = "DCS"          // another DCS reply
	NameAPC          = "APC"          // an APC reply (kitty graphics: ESC_G…ST)
	NameString       = "STRING"       // SOS or PM
	NameCSI          = "CSI"          // another CSI with a private prefix or an intermediate
	NameFocusIn      = "in"           // Focus token: ESC[I
	NameFocusOut     = "out"          // Focus token: ESC[O
)

// Token is one event of the pane's input with its exact bytes.
type Token struct {
	Kind Kind
	// Name details Report and Focus tokens (see the Name constants) and
	// names the mouse encoding ("X10", "SGR", "URXVT"); empty otherwise.
	Name string
	// Raw is the token's bytes as they arrived. It aliases the tokenizer's
	// or the caller's buffer: valid until the next Feed or Flush.
	Raw []byte
}

// IsOperator reports whether the token is something a human did at the
// pane: a key, a paste or a mouse event. Focus events and terminal reports
// are not typing.
func (t Token) IsOperator() bool {
	return t.Kind == Key || t.Kind == Paste || t.Kind == Mouse
}

// String shows the token for logs and test failures.
func (t Token) String() string {
	if t.Name != "" {
		return fmt.Sprintf("%s(%s %q)", t.Kind, t.Name, t.Raw)
	}
	return fmt.Sprintf("%s(%q)", t.Kind, t.Raw)
}
