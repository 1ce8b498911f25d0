package screen

import (
	"reflect"
	"strings"
	"testing"
)

// recording returns a screen that appends every signal to *got.
func recording(cols, rows int, got *[]Signal) *Screen {
	s := New(cols, rows)
	s.SetOnSignal(func(sg Signal) { *got = append(*got, sg) })
	return s
}

func kindsValues(sigs []Signal) []string {
	var out []string
	for _, sg := range sigs {
		out = append(out, sg.Kind.String()+"="+sg.Value)
	}
	return out
}

func TestSignalKinds(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"OSC 0 with BEL", "\x1b]0;✳ Claude Code\x07", []string{"title=✳ Claude Code"}},
		{"OSC 2 with ST", "\x1b]2;project\x1b\\", []string{"title=project"}},
		{"same title twice is one signal", "\x1b]0;a\x07\x1b]0;a\x07\x1b]0;b\x07", []string{"title=a", "title=b"}},
		{"empty title at exit", "\x1b]0;x\x07\x1b]0;\x07", []string{"title=x", "title="}},
		{"OSC 1 icon name is not a title", "\x1b]1;icon\x07", nil},
		{"OSC 9 notification", "\x1b]9;Approval requested: touch made.txt\x07", []string{"notify=Approval requested: touch made.txt"}},
		{"OSC 9 twice is two notifications", "\x1b]9;done\x07\x1b]9;done\x07", []string{"notify=done", "notify=done"}},
		{"OSC 9;4 progress", "\x1b]9;4;1;42\x1b\\", []string{"progress=1;42"}},
		{"OSC 777 notify", "\x1b]777;notify;Codex;turn done\x07", []string{"notify=Codex;turn done"}},
		{"OSC 7501 state", "\x1b]7501;state=working:app=codex\x1b\\\x1b]7501;state=working:app=codex\x1b\\\x1b]7501;state=done:app=codex\x1b\\",
			[]string{"agent_state=state=working:app=codex", "agent_state=state=done:app=codex"}},
		{"OSC 7501 query is not a state", "\x1b]7501;?\x1b\\", nil},
		{"BEL", "a\x07b\x07", []string{"bell=", "bell="}},
		{"BEL ending an OSC is not a bell", "\x1b]0;t\x07", []string{"title=t"}},
		{"bracketed paste", "\x1b[?2004h\x1b[?2004h\x1b[?2004l", []string{"bracketed_paste=on", "bracketed_paste=off"}},
		{"focus", "\x1b[?1004h\x1b[?1004l", []string{"focus=on", "focus=off"}},
		{"alt screen", "\x1b[?1049h\x1b[?1049l\x1b[?47h\x1b[?47l", []string{"alt_screen=on", "alt_screen=off", "alt_screen=on", "alt_screen=off"}},
		{"mouse: Claude's four modes are one change", "\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1006h\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?1006l",
			[]string{"mouse=on", "mouse=off"}},
		{"mouse: modes in one sequence", "\x1b[?1000;1006h\x1b[?1000;1006l", []string{"mouse=on", "mouse=off"}},
		{"mouse: an encoding alone reports nothing", "\x1b[?1006h", nil},
		{"RIS turns modes off", "\x1b[?2004;1004;1000h\x1bc", []string{"bracketed_paste=on", "focus=on", "mouse=on", "bracketed_paste=off", "focus=off", "mouse=off"}},
		{"title split across the 0x9C byte of ✳", "\x1b]0;\xe2\x9c\xb3 x\x07", []string{"title=✳ x"}},
		{"invalid UTF-8 in a title is replaced", "\x1b]0;a\xffb\x07", []string{"title=a\uFFFDb"}},
		{"unterminated OSC cut by ESC is still read", "\x1b]0;cut\x1b[m", []string{"title=cut"}},
		{"CAN aborts an OSC", "\x1b]0;no\x18", nil},
		{"queries are silent", "\x1b[c\x1b[6n\x1b]10;?\x1b\\\x1b]11;?\x07\x1b[>0q\x1b[?2004$p", nil},
	}
	for _, c := range cases {
		var got []Signal
		s := recording(20, 5, &got)
		s.Write([]byte(c.in))
		if gv := kindsValues(got); !reflect.DeepEqual(gv, c.want) {
			t.Fatalf("%s: signals %q, want %q", c.name, gv, c.want)
		}
		// Byte by byte: the same signals.
		var got2 []Signal
		s2 := recording(20, 5, &got2)
		for i := 0; i < len(c.in); i++ {
			s2.Write([]byte{c.in[i]})
		}
		if gv := kindsValues(got2); !reflect.DeepEqual(gv, c.want) {
			t.Fatalf("%s: byte by byte, signals %q, want %q", c.name, gv, c.want)
		}
	}
}

func TestSignalState(t *testing.T) {
	s := New(80, 24)
	s.Write([]byte("\x1b[?2004h\x1b[?1004h\x1b[?1049h\x1b[?1000h\x1b[?1006h" +
		"\x1b]0;◐ Claude Code\x07\x1b]9;hello\x07\x1b]9;4;3;0\x07\x1b]7501;state=blocked:app=codex:kind=permission\x1b\\\x07"))
	sg := s.Signals()
	if sg.Title != "◐ Claude Code" || sg.Notification != "hello" || sg.Notifications != 1 ||
		sg.Progress != (Progress{State: 3, Value: 0, Set: true}) ||
		sg.AgentState != "state=blocked:app=codex:kind=permission" || sg.Bells != 1 || sg.LastBell.IsZero() ||
		!sg.BracketedPaste || !sg.FocusReporting || !sg.AltScreen || !sg.MouseReporting ||
		!reflect.DeepEqual(sg.MouseModes, []int{1000, 1006}) || sg.LastSeq != 9 {
		t.Fatalf("signals: %+v", sg)
	}
	if st := StateField(sg.AgentState, "state"); st != "blocked" {
		t.Fatalf("StateField state = %q", st)
	}
	if k := StateField(sg.AgentState, "kind"); k != "permission" {
		t.Fatalf("StateField kind = %q", k)
	}
	if StateField(sg.AgentState, "nope") != "" {
		t.Fatal("StateField of a missing key")
	}
	// Signals returns a copy.
	sg.MouseModes[0] = 1
	if s.Signals().MouseModes[0] != 1000 {
		t.Fatal("Signals shares MouseModes")
	}
}

func TestSignalOffsetsAndSeq(t *testing.T) {
	var got []Signal
	s := recording(20, 5, &got)
	a := "abc\x1b]0;t\x07"   // title completes at byte 9
	b := "xy\x07\x1b[?2004h" // bell at byte 12 of the stream, mode at 20
	s.Write([]byte(a))
	s.Write([]byte(b))
	want := []struct {
		kind   SignalKind
		offset int64
	}{{SignalTitle, 9}, {SignalBell, 12}, {SignalBracketedPaste, 20}}
	if len(got) != len(want) {
		t.Fatalf("signals %v", kindsValues(got))
	}
	for i, w := range want {
		if got[i].Kind != w.kind || got[i].Offset != w.offset || got[i].Seq != uint64(i+1) || got[i].Time.IsZero() {
			t.Fatalf("signal %d: %+v, want kind %v offset %d seq %d", i, got[i], w.kind, w.offset, i+1)
		}
	}
	if s.Offset() != int64(len(a)+len(b)) {
		t.Fatalf("Offset %d", s.Offset())
	}
}

func TestLongNotificationIsCut(t *testing.T) {
	s := New(20, 5)
	long := strings.Repeat("x", maxString+1000)
	s.Write([]byte("\x1b]9;" + long + "\x07after"))
	if n := len(s.Signals().Notification); n != maxString-2 {
		t.Fatalf("notification length %d", n)
	}
	if !strings.Contains(s.Text(), "after") {
		t.Fatalf("text after a long OSC lost: %q", s.Text())
	}
}

func TestSignalKindString(t *testing.T) {
	if SignalMouse.String() != "mouse" || SignalKind(99).String() != "signal(99)" {
		t.Fatal(SignalMouse.String(), SignalKind(99).String())
	}
}
