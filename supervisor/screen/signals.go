package screen

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// SignalKind says what a Signal reports.
type SignalKind uint8

// Signal kinds. Title, AgentState and the mode kinds are reported when the
// value changes; Notify, Progress and Bell every time one arrives.
const (
	// SignalTitle: OSC 0 or OSC 2 set the window title; Value is the title.
	SignalTitle SignalKind = iota + 1
	// SignalNotify: OSC 9 (or OSC 777;notify) desktop notification; Value
	// is its text (for OSC 777, "title;body" as sent).
	SignalNotify
	// SignalProgress: OSC 9;4 progress; Value is "state;value" as sent.
	SignalProgress
	// SignalAgentState: OSC 7501, Codex's state report; Value is the raw
	// payload, e.g. "state=working:app=codex". Queries ("?") are not signals.
	SignalAgentState
	// SignalBell: BEL outside any sequence.
	SignalBell
	// SignalBracketedPaste: ?2004 turned "on" or "off".
	SignalBracketedPaste
	// SignalAltScreen: the alternate screen was entered ("on") or left.
	SignalAltScreen
	// SignalFocus: focus reporting (?1004) turned "on" or "off".
	SignalFocus
	// SignalMouse: mouse reporting turned "on" (any of ?9, ?1000-?1003)
	// or "off" (none left).
	SignalMouse
)

var kindNames = [...]string{
	SignalTitle: "title", SignalNotify: "notify", SignalProgress: "progress",
	SignalAgentState: "agent_state", SignalBell: "bell",
	SignalBracketedPaste: "bracketed_paste", SignalAltScreen: "alt_screen",
	SignalFocus: "focus", SignalMouse: "mouse",
}

// String returns the kind's name in snake case, for events and logs.
func (k SignalKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "signal(" + strconv.Itoa(int(k)) + ")"
}

// Signal is one stream signal as it was seen.
type Signal struct {
	Kind  SignalKind
	Value string
	// Seq numbers the signals of a screen from 1, in stream order.
	Seq uint64
	// Offset is the stream offset just past the byte that completed the
	// sequence (for a Model, counting dropped bytes too), so signals can
	// be ordered against anything else that counts output bytes.
	Offset int64
	// Time is when the screen parsed it (for a Model: when the model's
	// goroutine got to it, normally within microseconds of the pump).
	Time time.Time
}

// Progress is the last OSC 9;4 report (ConEmu / Windows Terminal
// convention): State 0 none, 1 normal, 2 error, 3 indeterminate, 4 paused;
// Value 0-100.
type Progress struct {
	State, Value int
	Set          bool // a report was seen
}

// Signals is the state the stream signals left behind.
type Signals struct {
	Title         string // last OSC 0/2 title ("" also when cleared)
	Notification  string // last OSC 9 / 777 notification text
	Notifications int    // how many notifications were seen
	Progress      Progress
	AgentState    string // last OSC 7501 payload, raw
	Bells         int
	LastBell      time.Time

	BracketedPaste bool
	AltScreen      bool
	FocusReporting bool
	MouseReporting bool  // any mouse tracking mode on
	MouseModes     []int // every mouse mode set, tracking and encoding, ascending

	LastSeq uint64 // Seq of the last signal, 0 if none
}

// Signals returns the current stream-signal state.
func (s *Screen) Signals() Signals {
	sig := s.sig
	sig.MouseModes = append([]int(nil), s.sig.MouseModes...)
	return sig
}

// emit records a signal and hands it to the callback.
func (s *Screen) emit(k SignalKind, v string) {
	s.seq++
	s.sig.LastSeq = s.seq
	if s.onSignal != nil {
		s.onSignal(Signal{Kind: k, Value: v, Seq: s.seq, Offset: s.at, Time: time.Now()})
	}
}

// osc handles a complete OSC payload ("<number>;<text>").
func (s *Screen) osc(data []byte) {
	num, rest, _ := bytes.Cut(data, []byte{';'})
	switch string(num) {
	case "0", "2":
		t := text(rest)
		if t != s.sig.Title {
			s.sig.Title = t
			s.emit(SignalTitle, t)
		}
	case "9":
		if p, ok := bytes.CutPrefix(rest, []byte("4;")); ok {
			s.progress(text(p))
			return
		}
		s.notify(text(rest))
	case "777":
		if body, ok := bytes.CutPrefix(rest, []byte("notify;")); ok {
			s.notify(text(body))
		}
	case "7501":
		v := text(rest)
		if v == "?" || v == "" {
			return // Claude Code's probe, not a state
		}
		if v != s.sig.AgentState {
			s.sig.AgentState = v
			s.emit(SignalAgentState, v)
		}
	}
	// OSC 1 (icon name), 4/10/11/12 colours and queries, 7 (cwd), 8
	// (hyperlinks), 52 (clipboard), 133 (prompts) and the rest: ignored.
}

func (s *Screen) notify(t string) {
	s.sig.Notification = t
	s.sig.Notifications++
	s.emit(SignalNotify, t)
}

func (s *Screen) progress(v string) {
	st, val, _ := strings.Cut(v, ";")
	p := Progress{Set: true}
	p.State, _ = strconv.Atoi(st)
	p.Value, _ = strconv.Atoi(val)
	p.Value = max(0, min(p.Value, 100))
	s.sig.Progress = p
	s.emit(SignalProgress, v)
}

// text turns an OSC payload into a string: invalid UTF-8 is replaced so
// that titles can be logged and sent as JSON safely.
func text(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// StateField returns the value of key in an OSC 7501 payload such as
// "state=blocked:app=codex:kind=permission" (fields separated by ':',
// key=value), or "" if absent. StateField(v, "state") is Codex's state:
// working, done, idle, error or blocked.
func StateField(payload, key string) string {
	for f := range strings.SplitSeq(payload, ":") {
		if k, v, ok := strings.Cut(f, "="); ok && k == key {
			return v
		}
	}
	return ""
}
