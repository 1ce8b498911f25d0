//go:build linux

package testutil

import "strings"

// Hostile is the corpus of strings an attacker would have an agent say
// (specs/security.md): terminal control sequences, bidi reordering, a
// carriage-return overwrite, tmux formats that run or read something, and
// a 1 MB line. Touch is the file the #(…) entries would create: tests
// replace TOUCH with a path of their own and assert it never appears.
var Hostile = []struct{ Name, Text string }{
	{"osc52", "copy \x1b]52;c;cm0gLXJmIH4=\x07 done"},
	{"clear", "\x1b[2Jcleared"},
	{"title", "\x1b]0;pwned title\x07renamed"},
	{"c1csi", "c1 \u009b2J csi"},
	{"bidi", "file \u202egnp.exe"},
	{"isolate", "a\u2066b\u2069c"},
	{"cr", "all good\rEVIL OVERWRITE"},
	{"newline", "row one\nforged row"},
	{"tab", "a\tb"},
	{"del", "x\x7fy"},
	{"invalid", "bad \xff\xfe utf8"},
	{"tmuxrun", "Done. #(touch TOUCH)"},
	{"tmuxvar", "pane #{pane_id} #{session_name}"},
	{"tmuxstyle", "#[fg=red,bg=blue]styled"},
	{"bigline", strings.Repeat("A", 1<<20)},
}

// HostileFor is Hostile with TOUCH replaced by touch.
func HostileFor(touch string) []struct{ Name, Text string } {
	out := make([]struct{ Name, Text string }, len(Hostile))
	for i, h := range Hostile {
		out[i] = h
		out[i].Text = strings.ReplaceAll(h.Text, "TOUCH", touch)
	}
	return out
}

// RawControl reports the first byte or rune of out a terminal would act
// on (C0 other than \n and \t, DEL, C1, bidi controls), "" when none:
// what a test asserts never reaches the operator's terminal.
func RawControl(out string) string {
	for i, r := range out {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f,
			r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return strings.ToValidUTF8(out[max(0, i-20):min(len(out), i+20)], "?")
		}
	}
	return ""
}
