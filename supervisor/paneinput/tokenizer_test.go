package paneinput

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// tokenCase is one input and the tokens it must give.
type tokenCase struct {
	name string
	in   string
	want []tok
}

func report(name, raw string) tok { return tok{Report, name, raw} }
func key(raw string) tok          { return tok{Key, "", raw} }

// reportCases holds every report a terminal or tmux sends on the pane's
// input, in each of its forms.
var reportCases = []tokenCase{
	{"DA1 tmux", "\x1b[?1;2c", []tok{report(NameDA1, "\x1b[?1;2c")}},
	{"DA1 tmux sixel", "\x1b[?1;2;4c", []tok{report(NameDA1, "\x1b[?1;2;4c")}},
	{"DA1 xterm", "\x1b[?62;22c", []tok{report(NameDA1, "\x1b[?62;22c")}},
	{"DA2 tmux", "\x1b[>84;0;0c", []tok{report(NameDA2, "\x1b[>84;0;0c")}},
	{"DA3", "\x1bP!|00000000\x1b\\", []tok{report(NameDA3, "\x1bP!|00000000\x1b\\")}},
	{"DSR ok", "\x1b[0n", []tok{report(NameDSR, "\x1b[0n")}},
	{"DSR colour scheme", "\x1b[?997;1n", []tok{report(NameDSR, "\x1b[?997;1n")}},
	{"CPR", "\x1b[12;40R", []tok{report(NameCPR, "\x1b[12;40R")}},
	{"CPR home", "\x1b[1;1R", []tok{report(NameCPR, "\x1b[1;1R")}},
	{"DECXCPR", "\x1b[?12;40;1R", []tok{report(NameDECXCPR, "\x1b[?12;40;1R")}},
	{"DECRQM private", "\x1b[?2026;2$y", []tok{report(NameDECRQM, "\x1b[?2026;2$y")}},
	{"DECRQM ansi", "\x1b[4;1$y", []tok{report(NameDECRQM, "\x1b[4;1$y")}},
	{"XTVERSION", "\x1bP>|tmux 3.4\x1b\\", []tok{report(NameXTVERSION, "\x1bP>|tmux 3.4\x1b\\")}},
	{"OSC4", "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\", []tok{report("OSC4", "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\")}},
	{"OSC10 BEL", "\x1b]10;rgb:ffff/ffff/ffff\a", []tok{report("OSC10", "\x1b]10;rgb:ffff/ffff/ffff\a")}},
	{"OSC11 ST", "\x1b]11;rgb:0000/0000/0000\x1b\\", []tok{report("OSC11", "\x1b]11;rgb:0000/0000/0000\x1b\\")}},
	{"OSC12", "\x1b]12;rgb:ffff/0000/0000\a", []tok{report("OSC12", "\x1b]12;rgb:ffff/0000/0000\a")}},
	{"OSC52 clipboard", "\x1b]52;c;aGVsbG8=\a", []tok{report("OSC52", "\x1b]52;c;aGVsbG8=\a")}},
	{"kitty flags", "\x1b[?1u", []tok{report(NameKittyFlags, "\x1b[?1u")}},
	{"kitty flags none", "\x1b[?0u", []tok{report(NameKittyFlags, "\x1b[?0u")}},
	{"window size pixels", "\x1b[4;600;800t", []tok{report(NameWinOps, "\x1b[4;600;800t")}},
	{"window size cells", "\x1b[8;24;80t", []tok{report(NameWinOps, "\x1b[8;24;80t")}},
	{"cell size", "\x1b[6;16;8t", []tok{report(NameWinOps, "\x1b[6;16;8t")}},
	{"DECRPSS", "\x1bP1$r0;1m\x1b\\", []tok{report(NameDECRPSS, "\x1bP1$r0;1m\x1b\\")}},
	{"DECRPSS invalid", "\x1bP0$r\x1b\\", []tok{report(NameDECRPSS, "\x1bP0$r\x1b\\")}},
	{"XTGETTCAP", "\x1bP1+r544e=787465726d\x1b\\", []tok{report(NameXTGETTCAP, "\x1bP1+r544e=787465726d\x1b\\")}},
	{"XTSMGRAPHICS", "\x1b[?1;0;256S", []tok{report(NameXTSMGRAPHICS, "\x1b[?1;0;256S")}},
	{"kitty graphics", "\x1b_Gi=31;OK\x1b\\", []tok{report(NameAPC, "\x1b_Gi=31;OK\x1b\\")}},
	{"title report with UTF-8", "\x1b]l✳ Claude Code\x1b\\", []tok{report(NameOSC, "\x1b]l✳ Claude Code\x1b\\")}},
	{"other DCS", "\x1bPq#0\x1b\\", []tok{report(NameDCS, "\x1bPq#0\x1b\\")}},
	{"other private CSI", "\x1b[?5x", []tok{report("CSI?x", "\x1b[?5x")}},
	{"focus in", "\x1b[I", []tok{{Focus, NameFocusIn, "\x1b[I"}}},
	{"focus out", "\x1b[O", []tok{{Focus, NameFocusOut, "\x1b[O"}}},
	{"Claude Code's start-up replies from tmux", "\x1b[?1;2c\x1b]11;rgb:0000/0000/0000\a\x1b[?0u",
		[]tok{report(NameDA1, "\x1b[?1;2c"), report("OSC11", "\x1b]11;rgb:0000/0000/0000\a"), report(NameKittyFlags, "\x1b[?0u")}},
}

// operatorCases holds keys, mouse events and pastes.
var operatorCases = []tokenCase{
	{"letters", "ab", []tok{key("a"), key("b")}},
	{"UTF-8", "é你", []tok{key("é"), key("你")}},
	{"enter, backspace, ctrl-c", "\r\x7f\x03", []tok{key("\r"), key("\x7f"), key("\x03")}},
	{"arrow", "\x1b[A", []tok{key("\x1b[A")}},
	{"SS3 arrow", "\x1bOA", []tok{key("\x1bOA")}},
	{"SS3 F1", "\x1bOP", []tok{key("\x1bOP")}},
	{"ctrl-right", "\x1b[1;5C", []tok{key("\x1b[1;5C")}},
	{"delete", "\x1b[3~", []tok{key("\x1b[3~")}},
	{"shift-F5", "\x1b[15;2~", []tok{key("\x1b[15;2~")}},
	{"shift-tab", "\x1b[Z", []tok{key("\x1b[Z")}},
	{"kitty key ctrl-a", "\x1b[97;5u", []tok{key("\x1b[97;5u")}},
	{"kitty key enter", "\x1b[13u", []tok{key("\x1b[13u")}},
	{"modifyOtherKeys ctrl-enter", "\x1b[27;5;13~", []tok{key("\x1b[27;5;13~")}},
	{"alt-a", "\x1ba", []tok{key("\x1ba")}},
	{"alt-é", "\x1bé", []tok{key("\x1bé")}},
	{"alt-enter", "\x1b\r", []tok{key("\x1b\r")}},
	{"alt-space", "\x1b ", []tok{key("\x1b ")}},
	{"alt-backslash", "\x1b\\", []tok{key("\x1b\\")}},
	{"alt-esc", "\x1b\x1b", []tok{key("\x1b"), key("\x1b")}},
	{"X10 mouse", "\x1b[M !!", []tok{{Mouse, "X10", "\x1b[M !!"}}},
	{"X10 mouse with ESC byte", "\x1b[M\x1b!!", []tok{{Mouse, "X10", "\x1b[M\x1b!!"}}},
	{"SGR mouse press", "\x1b[<0;10;5M", []tok{{Mouse, "SGR", "\x1b[<0;10;5M"}}},
	{"SGR mouse release", "\x1b[<0;10;5m", []tok{{Mouse, "SGR", "\x1b[<0;10;5m"}}},
	{"urxvt mouse", "\x1b[32;10;5M", []tok{{Mouse, "URXVT", "\x1b[32;10;5M"}}},
	{"paste", "\x1b[200~hi\r\x1b[A\x1b[201~", []tok{{Paste, "", "\x1b[200~hi\r\x1b[A\x1b[201~"}}},
	{"empty paste", "\x1b[200~\x1b[201~", []tok{{Paste, "", "\x1b[200~\x1b[201~"}}},
	{"paste then key", "\x1b[200~x\x1b[201~y", []tok{{Paste, "", "\x1b[200~x\x1b[201~"}, key("y")}},
	{"stray paste end", "\x1b[201~", []tok{{Paste, "", "\x1b[201~"}}},
	{"invalid CSI: alt-[ then ctrl-c", "\x1b[\x03", []tok{key("\x1b["), key("\x03")}},
	{"C1 byte is a key", "\x9b", []tok{key("\x9b")}},
}

func runSplitCases(t *testing.T, cases []tokenCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := merged(feedAll([]byte(c.in))); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("whole:\n got %v\nwant %v", got, c.want)
			}
			for k := 1; k < len(c.in); k++ {
				got := merged(feedAll([]byte(c.in[:k]), []byte(c.in[k:])))
				if !reflect.DeepEqual(got, c.want) {
					t.Fatalf("split at %d (%q | %q):\n got %v\nwant %v", k, c.in[:k], c.in[k:], got, c.want)
				}
			}
		})
	}
}

// Every report, fed whole and split in two at every byte boundary, is one
// Report token with its name, never an Esc key and characters.
func TestReportsSplitAtEveryByte(t *testing.T) { runSplitCases(t, reportCases) }

func TestOperatorInputSplitAtEveryByte(t *testing.T) { runSplitCases(t, operatorCases) }

func TestIsOperator(t *testing.T) {
	for _, c := range append(append([]tokenCase{}, reportCases...), operatorCases...) {
		for _, w := range c.want {
			tk := Token{Kind: w.Kind}
			want := w.Kind == Key || w.Kind == Paste || w.Kind == Mouse
			if tk.IsOperator() != want {
				t.Errorf("%s: %v.IsOperator() = %v", c.name, w.Kind, !want)
			}
		}
	}
	if (Token{Kind: Report}).IsOperator() || (Token{Kind: Focus}).IsOperator() {
		t.Fatal("a report or focus event counted as operator activity")
	}
}

// All cases at once, in one stream, fed one byte per read: same tokens.
func TestEveryCaseByteByByte(t *testing.T) {
	var in strings.Builder
	var want []tok
	for _, c := range append(append([]tokenCase{}, reportCases...), operatorCases...) {
		in.WriteString(c.in)
		want = append(want, c.want...)
	}
	var chunks [][]byte
	for _, b := range []byte(in.String()) {
		chunks = append(chunks, []byte{b})
	}
	if got := merged(feedAll(chunks...)); !reflect.DeepEqual(got, merged(want)) {
		t.Fatalf("byte by byte:\n got %v\nwant %v", got, merged(want))
	}
}

func TestLoneEscIsAKeyAfterTheTimeout(t *testing.T) {
	tz := New(0)
	if got := tz.Feed([]byte("\x1b"), t0); len(got) != 0 {
		t.Fatalf("lone ESC released at once: %v", got)
	}
	d, ok := tz.Deadline()
	if !ok || !d.Equal(t0.Add(DefaultTimeout)) {
		t.Fatalf("Deadline() = %v, %v; want %v, true", d, ok, t0.Add(DefaultTimeout))
	}
	if got := tz.Flush(d.Add(-time.Nanosecond)); len(got) != 0 {
		t.Fatalf("released before the deadline: %v", got)
	}
	got := own(tz.Flush(d))
	if want := []tok{key("\x1b")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Flush at the deadline = %v, want %v", got, want)
	}
	if _, ok := tz.Deadline(); ok || len(tz.Held()) != 0 {
		t.Fatalf("still holding %q after Flush", tz.Held())
	}
}

// The rest of a sequence arriving after the deadline, with no Flush in
// between (the timer lost the race), does not complete it: the ESC was
// typed on its own.
func TestLateRestIsKeys(t *testing.T) {
	tz := New(10 * time.Millisecond)
	tz.Feed([]byte("\x1b"), t0)
	got := own(tz.Feed([]byte("[A"), t0.Add(10*time.Millisecond)))
	want := []tok{key("\x1b"), key("["), key("A")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	tz.Feed([]byte("\x1b"), t0)
	got = own(tz.Feed([]byte("[A"), t0.Add(9*time.Millisecond)))
	if want := []tok{key("\x1b[A")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rest within the timeout: got %v, want %v", got, want)
	}
}

// An incomplete sequence is released as keys at the deadline: Alt+its
// second byte, then the rest one key each. The deadline counts from the
// last byte that arrived.
func TestIncompleteSequenceReleasedAsKeys(t *testing.T) {
	tz := New(0)
	tz.Feed([]byte("\x1b[1"), t0)
	tz.Feed([]byte("2;"), t0.Add(40*time.Millisecond))
	if got := tz.Flush(t0.Add(60 * time.Millisecond)); len(got) != 0 {
		t.Fatalf("released %v before the deadline of its last byte", got)
	}
	got := own(tz.Flush(t0.Add(90 * time.Millisecond)))
	want := []tok{key("\x1b["), key("1"), key("2"), key(";")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A paste streams out as it arrives: each read's content is released at
// once, except a tail that may begin the end marker.
func TestPasteStreams(t *testing.T) {
	tz := New(0)
	steps := []struct {
		in   string
		want []tok
		held string
	}{
		{"\x1b[200~abc", []tok{{Paste, "", "\x1b[200~abc"}}, ""},
		{strings.Repeat("x", 4096), []tok{{Paste, "", strings.Repeat("x", 4096)}}, ""},
		{"yz\x1b[20", []tok{{Paste, "", "yz"}}, "\x1b[20"},
		{"0~\x1b[2", []tok{{Paste, "", "\x1b[200~"}}, "\x1b[2"},
		{"01~q", []tok{{Paste, "", "\x1b[201~"}, key("q")}, ""},
	}
	for i, s := range steps {
		got := own(tz.Feed([]byte(s.in), t0))
		if !reflect.DeepEqual(got, s.want) || string(tz.Held()) != s.held {
			t.Fatalf("step %d: got %v held %q, want %v held %q", i, got, tz.Held(), s.want, s.held)
		}
	}
	if tz.InPaste() {
		t.Fatal("still in a paste after its end")
	}
}

// A paste whose end never comes: the held tail is released as paste at
// the deadline, and what follows is still paste.
func TestPasteTailReleasedAsPaste(t *testing.T) {
	tz := New(0)
	tz.Feed([]byte("\x1b[200~a\x1b"), t0)
	got := own(tz.Flush(t0.Add(time.Second)))
	if want := []tok{{Paste, "", "\x1b"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if !tz.InPaste() {
		t.Fatal("the paste ended without its end marker")
	}
}

// Nothing held ever exceeds MaxHeld: a long string reply streams as
// Report pieces, and a long CSI is released as keys.
func TestHeldIsBounded(t *testing.T) {
	tz := New(0)
	var got []tok
	got = append(got, own(tz.Feed([]byte("\x1b]52;c;"), t0))...)
	for range 10 {
		got = append(got, own(tz.Feed(bytes.Repeat([]byte("QUJD"), 1024), t0))...)
		if len(tz.Held()) > MaxHeld {
			t.Fatalf("holding %d bytes, more than %d", len(tz.Held()), MaxHeld)
		}
	}
	got = append(got, own(tz.Feed([]byte("\x1b"), t0))...)
	got = append(got, own(tz.Feed([]byte("\\x"), t0))...)
	m := merged(got)
	if len(m) != 2 || m[0].Kind != Report || m[0].Name != "OSC52" || !strings.HasSuffix(m[0].Raw, "\x1b\\") || m[1] != key("x") {
		t.Fatalf("long OSC 52: got %d tokens, first %v, last %v", len(m), m[0].Name, m[len(m)-1])
	}

	tz = New(0)
	toks := own(tz.Feed([]byte("\x1b["+strings.Repeat("1", MaxHeld+1)), t0))
	if len(tz.Held()) > MaxHeld || len(toks) == 0 || toks[0] != key("\x1b[") {
		t.Fatalf("long CSI: held %d, first tokens %v", len(tz.Held()), toks[:min(len(toks), 2)])
	}
}

// More parameters than ansi's parser has room for: no panic, a report.
func TestManyParameters(t *testing.T) {
	in := "\x1b[?" + strings.Repeat("1;", 40) + "1c"
	if got := feedAll([]byte(in)); !reflect.DeepEqual(got, []tok{report(NameCSI, in)}) {
		t.Fatalf("got %v", got)
	}
	in = "\x1bP" + strings.Repeat("1;", 40) + "|x\x1b\\"
	if got := feedAll([]byte(in)); !reflect.DeepEqual(got, []tok{report(NameDCS, in)}) {
		t.Fatalf("got %v", got)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Key: "key", Paste: "paste", Mouse: "mouse", Focus: "focus", Report: "report", 0: "kind(0)"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), want)
		}
	}
	if s := (Token{Kind: Report, Name: NameDA1, Raw: []byte("\x1b[?1c")}).String(); s != `report(DA1 "\x1b[?1c")` {
		t.Errorf("Token.String() = %s", s)
	}
}
