package supervisor

import "testing"

func TestUnitStripANSI(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "hello world", "hello world"},
		{"empty", "", ""},
		{"SGR colour", "\x1b[31mred\x1b[0m plain", "red plain"},
		{"SGR with many params", "\x1b[1;38;5;208mbold\x1b[m", "bold"},
		{"private mode CSI", "\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"},
		{"cursor movement and erase", "a\x1b[2J\x1b[H\x1b[10;20Hb\x1b[K", "ab"},
		{"CSI with intermediate byte", "x\x1b[0 qy", "xy"},
		{"OSC title ended by BEL", "\x1b]0;my title\x07text", "text"},
		{"OSC hyperlink ended by ST", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS ended by ST", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"APC, PM and SOS", "1\x1b_apc\x1b\\2\x1b^pm\x1b\\3\x1bXsos\x1b\\4", "1234"},
		{"charset selection", "\x1b(Bascii\x1b)0", "ascii"},
		{"line size selection", "\x1b#8e", "e"},
		{"two-byte escapes", "\x1b=keypad\x1b>\x1b7saved\x1b8\x1bMx", "keypadsavedx"},
		{"lone trailing ESC", "abc\x1b", "abc"},
		{"unterminated CSI drops the rest", "abc\x1b[31", "abc"},
		{"unterminated OSC drops the rest", "abc\x1b]0;title", "abc"},
		{"CR becomes newline", "progress 10%\rprogress 20%", "progress 10%\nprogress 20%"},
		{"CRLF becomes one newline", "a\r\nb\r\n", "a\nb\n"},
		{"CR CR LF", "a\r\r\nb", "a\n\nb"},
		{"trailing CR", "a\r", "a\n"},
		{"newline and tab kept", "a\tb\nc", "a\tb\nc"},
		{"control characters removed", "a\x00b\x07c\x08d\x0be\x0cf\x7fg\x1ah", "abcdefgh"},
		{"UTF-8 kept", "héllo wörld ✓ 日本 🚀", "héllo wörld ✓ 日本 🚀"},
		{"C1 controls removed", "a\u0085b\u009bc\u0080d", "abcd"},
		{"invalid UTF-8 dropped", "a\xffb\xc3c", "abc"},
		{"colour around UTF-8", "\x1b[32m✓\x1b[0m done", "✓ done"},
		{"mixed prompt line", "\x1b]133;A\x07\x1b[1m$ \x1b[0mls\r\n\x1b[34mdir\x1b[0m\r\n", "$ ls\ndir\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripANSI([]byte(tt.in)); got != tt.want {
				t.Errorf("StripANSI(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestUnitStripANSIEscEsc: a second ESC aborts the first sequence.
func TestUnitStripANSIEscEsc(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// A second ESC aborts the first sequence and starts a new one.
		{"ESC ESC CSI", "\x1b\x1b[31mx", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripANSI([]byte(tt.in)); got != tt.want {
				t.Fatalf("StripANSI(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnitStripANSINeverEmitsEscapes(t *testing.T) {
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i), 0x1b, byte(i), '[', byte(i))
	}
	out := StripANSI(all)
	for i := 0; i < len(out); i++ {
		c := out[i]
		if c == 0x1b || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Fatalf("StripANSI output holds control byte %#x at %d: %q", c, i, out)
		}
	}
}
