package screen

import (
	"strings"
	"testing"
)

// sc feeds in to a fresh cols x rows screen.
func sc(cols, rows int, in string) *Screen {
	s := New(cols, rows)
	s.Write([]byte(in))
	return s
}

// screenCase is one table entry: input, expected Text with rows joined by
// "|" (trailing blank rows omitted) and the cursor. Size defaults to
// 10x4. TestCasesMatchTmux checks every table against tmux itself.
type screenCase struct {
	name       string
	cols, rows int
	in         string
	want       string
	cx, cy     int
	// tmuxDiffers says why tmux 3.3a's capture differs here, on purpose.
	tmuxDiffers string
}

func (c screenCase) size() (int, int) {
	if c.cols == 0 {
		return 10, 4
	}
	return c.cols, c.rows
}

func runCases(t *testing.T, cases []screenCase) {
	t.Helper()
	for _, c := range cases {
		cols, rows := c.size()
		s := sc(cols, rows, c.in)
		got := strings.ReplaceAll(s.Text(), "\n", "|")
		if got != c.want {
			t.Fatalf("%s: text\n got %q\nwant %q", c.name, got, c.want)
		}
		x, y, _ := s.Cursor()
		if x != c.cx || y != c.cy {
			t.Fatalf("%s: cursor %d,%d, want %d,%d", c.name, x, y, c.cx, c.cy)
		}
		// Byte by byte gives the same screen: sequences split anywhere
		// are reassembled.
		s2 := New(cols, rows)
		for i := 0; i < len(c.in); i++ {
			s2.Write([]byte{c.in[i]})
		}
		if s2.Text() != s.Text() || s2.ANSI() != s.ANSI() {
			t.Fatalf("%s: byte-by-byte feed differs:\n%q\n%q", c.name, s2.Text(), s.Text())
		}
	}
}

const (
	fill4 = "aaaaaaaaaa\r\nbbbbbbbbbb\r\ncccccccccc\r\ndddddddddd"
	fill6 = "1\r\n2\r\n3\r\n4\r\n5\r\n6"
)

var printCases = []screenCase{
	{name: "plain", in: "abc", want: "abc", cx: 3, cy: 0},
	{name: "CR LF", in: "ab\r\ncd", want: "ab|cd", cx: 2, cy: 1},
	{name: "bare LF keeps column", in: "ab\ncd", want: "ab|  cd", cx: 4, cy: 1},
	{name: "VT and FF are line feeds", in: "a\vb\fc", want: "a| b|  c", cx: 3, cy: 2},
	{name: "BS", in: "abc\b\bX", want: "aXc", cx: 2, cy: 0},
	{name: "BS at column 0 stays", in: "\bX", want: "X", cx: 1, cy: 0},
	{name: "HT to default stops", cols: 20, rows: 2, in: "a\tb\tc", want: "a       b       c", cx: 17, cy: 0},
	{name: "HT stops at last column", in: "\t\t\tX", want: "         X", cx: 9, cy: 0},
	{name: "exact width leaves a pending wrap", in: "0123456789", want: "0123456789", cx: 9, cy: 0},
	{name: "next char wraps", in: "0123456789X", want: "0123456789|X", cx: 1, cy: 1},
	{name: "CR LF at pending wrap: no blank row", in: "0123456789\r\nX", want: "0123456789|X", cx: 1, cy: 1},
	{name: "LF at pending wrap keeps it (tmux)", in: "0123456789\nX", want: "0123456789||X", cx: 1, cy: 2},
	{name: "autowrap off overwrites last column", in: "\x1b[?7l0123456789XY", want: "012345678Y", cx: 9, cy: 0},
	{name: "wrap at bottom scrolls", cols: 3, rows: 2, in: "abcdefg", want: "def|g", cx: 1, cy: 1},
	{name: "LF at bottom scrolls", cols: 3, rows: 2, in: "a\r\nb\r\nc", want: "b|c", cx: 1, cy: 1},
	{name: "DEL and unknown C0 ignored", in: "a\x7f\x01\x02b", want: "ab", cx: 2, cy: 0},
	{name: "BS from pending wrap stays on last column", in: "0123456789\bX", want: "012345678X", cx: 9, cy: 0},
	{name: "BS at col 0 of a wrapped row goes up", in: "0123456789AB\b\b\bZ", want: "012345678Z|AB", cx: 9, cy: 0},
	{name: "IRM inserts", in: "abc\r\x1b[4hXY\x1b[4lZ", want: "XYZbc", cx: 3, cy: 0},
	{name: "LNM ignored (tmux)", in: "\x1b[20hab\ncd", want: "ab|  cd", cx: 4, cy: 1},
}

var utf8Cases = []screenCase{
	{name: "two-byte", in: "caf\xc3\xa9", want: "café", cx: 4, cy: 0},
	{name: "no-break space after prompt glyph kept", in: "❯\u00a0draft", want: "❯\u00a0draft", cx: 7, cy: 0},
	{name: "trailing NBSP is not trimmed", in: "❯\u00a0", want: "❯\u00a0", cx: 2, cy: 0},
	{name: "combining mark joins its base", in: "e\u0301x", want: "e\u0301x", cx: 2, cy: 0},
	{name: "combining at pending wrap joins last column", in: "012345678e\u0301", want: "012345678e\u0301", cx: 9, cy: 0},
	{name: "invalid bytes dropped", in: "a\xffb\x80c\xc3(d", want: "abc(d", cx: 5, cy: 0},
	{name: "truncated sequence then escape", in: "a\xe2\x9c\x1b[1Cb", want: "a b", cx: 3, cy: 0},
	{name: "C1 bytes are not controls", in: "a\x9b31mb\x9dc", want: "a31mbc", cx: 6, cy: 0},
	{name: "C1 code points and noncharacters take no cell", in: "a\xc2\x85b\xef\xbf\xbec", want: "abc", cx: 3, cy: 0},
	{name: "zero-width format characters join the previous cell", in: "a\u200bc\U000e0001d", want: "a\u200bc\U000e0001d", cx: 3, cy: 0},
	{name: "soft hyphen takes a cell (tmux)", in: "a\u00adb", want: "a\u00adb", cx: 3, cy: 0},
	{name: "agent glyphs are narrow", cols: 60, rows: 2, in: "❯✳✶✻⏸⎿●◐◑⠋›•◦■✔✗└⚠←↓·…─╌▐▛█▝▜▀⏵✢✽↯⧉⏺⎯╭╮╰╯│┃", want: "❯✳✶✻⏸⎿●◐◑⠋›•◦■✔✗└⚠←↓·…─╌▐▛█▝▜▀⏵✢✽↯⧉⏺⎯╭╮╰╯│┃", cx: 43, cy: 0},
	{name: "emoji and variation selectors", cols: 40, rows: 2, in: "⚠\ufe0f|✔\ufe0f|🚀|✅|❌|⭐|👍🏽|🇺🇸|x", want: "⚠\ufe0f|✔\ufe0f|🚀|✅|❌|⭐|👍🏽|🇺🇸|x", cx: 25, cy: 0},
	{name: "box drawing", in: "╭─╮\r\n╰─╯", want: "╭─╮|╰─╯", cx: 3, cy: 1},
	{name: "DEC graphics G0", in: "\x1b(0lqk\x1b(Bq", want: "┌─┐q", cx: 4, cy: 0},
	{name: "DEC graphics G1 via SO/SI", in: "\x1b)0\x0emqj\x0fx", want: "└─┘x", cx: 4, cy: 0},
}

var wideCases = []screenCase{
	{name: "wide occupies two cells", in: "你好x", want: "你好x", cx: 5, cy: 0},
	{name: "wide fits the last two columns", in: "\x1b[1;9H你", want: "        你", cx: 9, cy: 0},
	{name: "wide at the last column wraps, column left alone", in: "abcdefghij\r\x1b[1;10H你", want: "abcdefghij|你", cx: 2, cy: 1},
	{name: "overwriting a wide tail blanks its head", in: "你好\x1b[1;2HX", want: " X好", cx: 2, cy: 0,
		tmuxDiffers: "tmux 3.3a keeps the head in its grid and capture prints \"你X好\" (5 columns for 4 cells)"},
	{name: "overwriting a wide head blanks its tail", in: "你好\x1b[1;3HX", want: "你X", cx: 3, cy: 0},
	{name: "narrow over half of a wide", in: "ab你\x1b[1;3HZ", want: "abZ", cx: 3, cy: 0},
	{name: "wide without autowrap at the edge is dropped", in: "\x1b[?7l\x1b[1;10H你", want: "", cx: 9, cy: 0},
	{name: "emoji is wide", in: "🙂x", want: "🙂x", cx: 3, cy: 0},
	{name: "DCH splits a wide rune", in: "a你b\x1b[1;2H\x1b[P", want: "a b", cx: 1, cy: 0,
		tmuxDiffers: "tmux keeps the orphan tail cell, which capture prints as nothing: \"ab\" with b still in column 2"},
	{name: "ICH pushes a wide head off the edge", in: "12345678你\x1b[1;1H\x1b[@", want: " 12345678", cx: 0, cy: 0,
		tmuxDiffers: "tmux keeps the rune past the edge in its grid line and capture prints it"},
}

var cursorCases = []screenCase{
	{name: "CUP", in: "\x1b[2;3HX", want: "|  X", cx: 3, cy: 1},
	{name: "CUP defaults home", in: "abc\x1b[HX", want: "Xbc", cx: 1, cy: 0},
	{name: "HVP", in: "\x1b[3;2fX", want: "|| X", cx: 2, cy: 2},
	{name: "CUP clamps", in: "\x1b[99;99HX", want: "|||         X", cx: 9, cy: 3},
	{name: "CUU CUD CUF CUB", in: "\x1b[3;5H\x1b[2A\x1b[C\x1b[3D\x1b[BX", want: "|  X", cx: 3, cy: 1},
	{name: "zero counts mean one", in: "\x1b[3;5H\x1b[0A\x1b[0DX", want: "|   X", cx: 4, cy: 1},
	{name: "CNL CPL", in: "ab\x1b[2EX\x1b[FY", want: "ab|Y|X", cx: 1, cy: 1},
	{name: "CHA HPA", in: "abc\x1b[6GX\x1b[2`Y", want: "aYc  X", cx: 2, cy: 0},
	{name: "VPA keeps column", in: "abc\x1b[3dX", want: "abc||   X", cx: 4, cy: 2},
	{name: "VPR HPR ignored (tmux)", in: "\x1b[2e\x1b[3aX", want: "X", cx: 1, cy: 0},
	{name: "CUB from pending wrap counts from past the edge", in: "0123456789\x1b[DX", want: "012345678X", cx: 9, cy: 0},
	{name: "CUF from pending wrap clears it", in: "0123456789\x1b[CX", want: "012345678X", cx: 9, cy: 0},
	{name: "big counts clamp", in: "\x1b[999B\x1b[65535CX", want: "|||         X", cx: 9, cy: 3},
}

var eraseCases = []screenCase{
	{name: "ED 0", in: fill4 + "\x1b[2;5H\x1b[J", want: "aaaaaaaaaa|bbbb", cx: 4, cy: 1},
	{name: "ED 1", in: fill4 + "\x1b[2;5H\x1b[1J", want: "|     bbbbb|cccccccccc|dddddddddd", cx: 4, cy: 1},
	{name: "ED 2", in: fill4 + "\x1b[2;5H\x1b[2J", want: "", cx: 4, cy: 1},
	{name: "ED 3 leaves the screen", in: fill4 + "\x1b[3J", want: "aaaaaaaaaa|bbbbbbbbbb|cccccccccc|dddddddddd", cx: 9, cy: 3},
	{name: "EL 0", in: fill4 + "\x1b[2;5H\x1b[K", want: "aaaaaaaaaa|bbbb|cccccccccc|dddddddddd", cx: 4, cy: 1},
	{name: "EL 1", in: fill4 + "\x1b[2;5H\x1b[1K", want: "aaaaaaaaaa|     bbbbb|cccccccccc|dddddddddd", cx: 4, cy: 1},
	{name: "EL 2", in: fill4 + "\x1b[2;5H\x1b[2K", want: "aaaaaaaaaa||cccccccccc|dddddddddd", cx: 4, cy: 1},
	{name: "EL 0 at pending wrap erases nothing (tmux)", in: "0123456789\x1b[K", want: "0123456789", cx: 9, cy: 0},
	{name: "ECH", in: "abcdefghij\x1b[1;3H\x1b[3X", want: "ab   fghij", cx: 2, cy: 0},
	{name: "ECH past the edge", in: "abcdefghij\x1b[1;9H\x1b[99X", want: "abcdefgh", cx: 8, cy: 0},
	{name: "DECSED/DECSEL ignored (tmux)", in: fill4 + "\x1b[2;5H\x1b[?K\x1b[3;1H\x1b[?J", want: "aaaaaaaaaa|bbbbbbbbbb|cccccccccc|dddddddddd", cx: 0, cy: 2},
}

var insertDeleteCases = []screenCase{
	{name: "ICH", in: "abcdefghij\x1b[1;3H\x1b[2@", want: "ab  cdefgh", cx: 2, cy: 0},
	{name: "DCH", in: "abcdefghij\x1b[1;3H\x1b[2P", want: "abefghij", cx: 2, cy: 0},
	{name: "DCH past the edge", in: "abcdefghij\x1b[1;3H\x1b[99P", want: "ab", cx: 2, cy: 0},
	{name: "IL", in: fill4 + "\x1b[2;4H\x1b[L", want: "aaaaaaaaaa||bbbbbbbbbb|cccccccccc", cx: 3, cy: 1},
	{name: "DL", in: fill4 + "\x1b[2;4H\x1b[2M", want: "aaaaaaaaaa|dddddddddd", cx: 3, cy: 1},
	{name: "SU", in: fill4 + "\x1b[S", want: "bbbbbbbbbb|cccccccccc|dddddddddd", cx: 9, cy: 3},
	{name: "SD", in: fill4 + "\x1b[2T", want: "||aaaaaaaaaa|bbbbbbbbbb", cx: 9, cy: 3},
	{name: "SD reads the first parameter only (tmux)", in: fill4 + "\x1b[1;2;3;4;5T", want: "|aaaaaaaaaa|bbbbbbbbbb|cccccccccc", cx: 9, cy: 3},
	{name: "REP", in: "x\x1b[3b", want: "xxxx", cx: 4, cy: 0},
	{name: "REP stops at the line end", in: "x\x1b[99b", want: "xxxxxxxxxx", cx: 9, cy: 0},
	{name: "REP after a sequence repeats nothing", in: "x\x1b[m\x1b[3b", want: "x", cx: 1, cy: 0},
	{name: "REP of a non-ASCII rune repeats nothing (tmux)", in: "é\x1b[3b", want: "é", cx: 1, cy: 0},
}

var scrollCases = []screenCase{
	{name: "LF at region bottom scrolls the region only", cols: 5, rows: 6, in: fill6 + "\x1b[2;4r\x1b[4;1H\nX", want: "1|3|4|X|5|6", cx: 1, cy: 3},
	{name: "DECSTBM homes the cursor", cols: 5, rows: 6, in: fill6 + "\x1b[2;4rX", want: "X|2|3|4|5|6", cx: 1, cy: 0},
	{name: "RI at region top scrolls down", cols: 5, rows: 6, in: fill6 + "\x1b[2;4r\x1b[2;1H\x1bMX", want: "1|X|2|3|5|6", cx: 1, cy: 1},
	{name: "IL inside region", cols: 5, rows: 6, in: fill6 + "\x1b[2;4r\x1b[3;1H\x1b[L", want: "1|2||3|5|6", cx: 0, cy: 2},
	{name: "DL inside region", cols: 5, rows: 6, in: fill6 + "\x1b[2;4r\x1b[2;1H\x1b[M", want: "1|3|4||5|6", cx: 0, cy: 1},
	{name: "IL outside region uses the rest of the screen (tmux)", cols: 5, rows: 6, in: fill6 + "\x1b[2;3r\x1b[5;1H\x1b[L", want: "1|2|3|4||5", cx: 0, cy: 4},
	{name: "SU scrolls the region", cols: 5, rows: 6, in: fill6 + "\x1b[2;4r\x1b[S", want: "1|3|4||5|6", cx: 0, cy: 0},
	{name: "below the region LF stops at the bottom", cols: 5, rows: 6, in: fill6 + "\x1b[1;3r\x1b[6;1H\nX", want: "1|2|3|4|5|X", cx: 1, cy: 5},
	{name: "CUD stops at region bottom", cols: 5, rows: 6, in: "\x1b[2;4r\x1b[2;1H\x1b[9BX", want: "|||X", cx: 1, cy: 3},
	{name: "CUU stops at region top", cols: 5, rows: 6, in: "\x1b[2;4r\x1b[4;1H\x1b[9AX", want: "|X", cx: 1, cy: 1},
	{name: "one-row region refused", cols: 5, rows: 6, in: "\x1b[3;3r\x1b[6;1H\nX", want: "|||||X", cx: 1, cy: 5},
	{name: "origin mode", cols: 5, rows: 6, in: "\x1b[3;5r\x1b[?6h\x1b[1;1HA\x1b[9;1HB\x1b[?6lC", want: "C||A||B", cx: 1, cy: 0},
	{name: "DECALN", cols: 3, rows: 2, in: "\x1b#8", want: "EEE|EEE", cx: 0, cy: 0},
	// A C0 control inside a sequence is executed and the sequence keeps
	// its private marker (FuzzResync's finding: the parser dropped it).
	{name: "C0 inside a CSI keeps its marker", cols: 5, rows: 6, in: "\x1b[3;5r\x1b[?\x006h\x1b[1;1HA", want: "||A", cx: 1, cy: 2},
	{name: "CR inside a CSI executes", cols: 5, rows: 6, in: "abc\x1b[\r2CX", want: "abX", cx: 3, cy: 0},
}

var saveRestoreCases = []screenCase{
	{name: "DECSC DECRC", in: "ab\x1b7\x1b[3;3Hx\x1b8Y", want: "abY||  x", cx: 3, cy: 0},
	{name: "SCOSC SCORC", in: "ab\x1b[s\x1b[3;3Hx\x1b[uY", want: "abY||  x", cx: 3, cy: 0},
	{name: "DECRC restores rendition", in: "\x1b[1m\x1b7\x1b[m\x1b8X", want: "X", cx: 1, cy: 0},
	{name: "DECRC without save homes", in: "abc\x1b8X", want: "Xbc", cx: 1, cy: 0},
	{name: "1048 ignored (tmux)", in: "ab\x1b[?1048h\x1b[3;3Hx\x1b[?1048lY", want: "ab||  xY", cx: 4, cy: 2},
	{name: "kitty keyboard CSI > u and CSI < u are not SCORC", in: "ab\x1b[s\x1b[2;2H\x1b[>1u\x1b[<u\x1b[?uX", want: "ab| X", cx: 2, cy: 1},
}

const mainScreen = "main1\r\nmain2"

var altCases = []screenCase{
	{name: "1049 enter clears", in: mainScreen + "\x1b[?1049h", want: "", cx: 5, cy: 1},
	{name: "1049 round trip restores screen and cursor", in: mainScreen + "\x1b[?1049hALT\x1b[2;1Hmore\x1b[?1049lX", want: "main1|main2X", cx: 6, cy: 1},
	{name: "47 switches without cursor save", in: mainScreen + "\x1b[?47hALT\x1b[?47lX", want: "main1|main2   X", cx: 9, cy: 1},
	{name: "1047", in: mainScreen + "\x1b[?1047hALT\x1b[?1047l", want: "main1|main2", cx: 8, cy: 1},
	{name: "re-entering starts blank", in: "\x1b[?1049hfirst\x1b[?1049l\x1b[?1049h", want: "", cx: 0, cy: 0},
	{name: "leaving when not in alt does nothing", in: mainScreen + "\x1b[?1049l", want: "main1|main2", cx: 5, cy: 1},
	// tmux keeps the cursor ?1049h saved after the alternate screen is
	// left (even across RIS) and ?1049l restores it, in the alternate
	// screen or not; ?47h saves the rendition only.
	{name: "1049l outside alt restores the last 1049h cursor", in: "\x1b[3;4H\x1b[?1049h\x1b[?1049l\x1b[1;1H\x1b[?1049lX", want: "||   X", cx: 4, cy: 2},
	{name: "the 1049h cursor survives RIS", in: "\x1b[2;6H\x1b[?1049h\x1b[?1049l\x1bc\x1b[?1049lX", want: "|     X", cx: 6, cy: 1},
	{name: "1049l after 47h restores the 1049h cursor", in: "\x1b[2;2H\x1b[?1049h\x1b[?1049l\x1b[4;1H\x1b[?47hA\x1b[?1049lX", want: "| X", cx: 2, cy: 1},
	{name: "1047l restores no cursor", in: "\x1b[2;2H\x1b[?1049h\x1b[?1049l\x1b[4;1H\x1b[?1047lX", want: "|||X", cx: 1, cy: 3},
}

var ignoredCases = []screenCase{
	{name: "cursor style ignored", in: "a\x1b[2 qb", want: "ab", cx: 2, cy: 0},
	{name: "queries answer nothing and show nothing", in: "a\x1b[c\x1b[>c\x1b[5n\x1b[6n\x1b[>0q\x1b[?2026$p\x1b[16t\x1b]10;?\x1b\\\x1b]11;?\x07b", want: "ab", cx: 2, cy: 0},
	{name: "kitty graphics APC ignored", in: "a\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\b", want: "ab", cx: 2, cy: 0},
	{name: "DCS ignored", in: "a\x1bP>|xterm(1)\x1b\\b", want: "ab", cx: 2, cy: 0},
	{name: "tmux passthrough with doubled ESC ignored", in: "a\x1bPtmux;\x1b\x1b]0;t\x07\x1b\\b", want: "ab", cx: 2, cy: 0},
	{name: "PM and SOS ignored", in: "a\x1b^pm\x1b\\\x1bXsos\x1b\\b", want: "ab", cx: 2, cy: 0},
	{name: "ESC cuts a string short and starts a sequence", in: "a\x1b]0;unterminated\x1b[2Cb", want: "a  b", cx: 4, cy: 0},
	{name: "CAN aborts a string", in: "a\x1b]0;x\x18b", want: "ab", cx: 2, cy: 0},
	{name: "unknown CSI ignored", in: "a\x1b[5;6;7zb\x1b[=5ub\x1b[>4;0m", want: "abb", cx: 3, cy: 0},
	{name: "8-bit bytes inside a CSI skipped", in: "\x1b[2\xc3\xa9Cb", want: "  b", cx: 3, cy: 0},
	{name: "RIS resets", in: "abc\x1b[1m\x1b[2;3r\x1bcX", want: "X", cx: 1, cy: 0},
	{name: "DECSTR ignored (tmux)", in: "abc\x1b[?7l\x1b[!pdefghijklm", want: "abcdefghim", cx: 9, cy: 0},
	{name: "DECCOLM clears and homes", in: "abc\x1b[?3hX", want: "X", cx: 1, cy: 0},
	{name: "tab stops: HTS, TBC, CBT; CHT ignored (tmux)", cols: 20, rows: 2, in: "\x1b[3g\x1b[1;4H\x1bH\x1b[1;12H\x1bH\r\tA\tB\x1b[2ZC\x1b[ID", want: "   CD      B", cx: 5, cy: 0},
}

// pendingCases pin down what tmux does while a wrap is pending (cursor
// "past" the last column after writing it).
var pendingCases = []screenCase{
	{name: "ECH at pending wrap does nothing", in: "0123456789\x1b[X", want: "0123456789", cx: 9, cy: 0},
	{name: "ICH at pending wrap does nothing", in: "0123456789\x1b[@", want: "0123456789", cx: 9, cy: 0},
	{name: "DCH at pending wrap does nothing", in: "0123456789\x1b[P", want: "0123456789", cx: 9, cy: 0},
	{name: "EL 1 at pending wrap clears the row", in: "0123456789\x1b[1K", want: "", cx: 9, cy: 0},
	{name: "ED 1 at pending wrap", in: "0123456789\r\n0123456789\x1b[1J", want: "", cx: 9, cy: 1},
	{name: "CUU at pending wrap", in: "\x1b[2;1H0123456789\x1b[AX", want: "         X|0123456789", cx: 9, cy: 0},
	{name: "CUD at pending wrap", in: "0123456789\x1b[BX", want: "0123456789|         X", cx: 9, cy: 1},
	{name: "VPA at pending wrap keeps it", in: "0123456789\x1b[3dX", want: "0123456789|||X", cx: 1, cy: 3},
	{name: "CR at pending wrap", in: "0123456789\rX", want: "X123456789", cx: 1, cy: 0},
	{name: "HT at pending wrap does nothing", in: "0123456789\tX", want: "0123456789|X", cx: 1, cy: 1},
	{name: "DECRC drops a pending wrap", in: "0123456789\x1b7\x1b[3;1H\x1b8X", want: "012345678X", cx: 9, cy: 0},
	{name: "1049 drops a pending wrap", in: "0123456789\x1b[?1049h\x1b[?1049lX", want: "012345678X", cx: 9, cy: 0},
	{name: "IL at pending wrap keeps it", in: "0123456789\x1b[LX", want: "|X123456789", cx: 1, cy: 1},
	{name: "RI at pending wrap keeps it", in: "\x1b[2;1H0123456789\x1bMX", want: "|X123456789", cx: 1, cy: 1},
	{name: "insert mode at pending wrap", in: "0123456789\x1b[4hX", want: "0123456789|X", cx: 1, cy: 1},
	{name: "wide then combining", in: "你\u0301x", want: "你\u0301x", cx: 3, cy: 0},
	{name: "SGR keeps a pending wrap", in: "0123456789\x1b[1mX", want: "0123456789|X", cx: 1, cy: 1},
	{name: "RIS on the alternate screen stays there (tmux)", in: mainScreen + "\x1b[?1049hALT\x1bcX\x1b[?1049l", want: "main1|main2", cx: 5, cy: 1},
}

// allCases names every table, for TestCasesMatchTmux.
var allCases = map[string][]screenCase{
	"print": printCases, "utf8": utf8Cases, "wide": wideCases, "cursor": cursorCases,
	"erase": eraseCases, "insertDelete": insertDeleteCases, "scroll": scrollCases,
	"saveRestore": saveRestoreCases, "alt": altCases, "ignored": ignoredCases,
	"pending": pendingCases,
}

func TestPrintAndControls(t *testing.T) { runCases(t, printCases) }
func TestUTF8(t *testing.T)             { runCases(t, utf8Cases) }
func TestCursorMovement(t *testing.T)   { runCases(t, cursorCases) }
func TestErase(t *testing.T)            { runCases(t, eraseCases) }
func TestInsertDelete(t *testing.T)     { runCases(t, insertDeleteCases) }
func TestScrollRegion(t *testing.T)     { runCases(t, scrollCases) }
func TestPendingWrap(t *testing.T)      { runCases(t, pendingCases) }
func TestSaveRestore(t *testing.T) {
	runCases(t, saveRestoreCases)
	s := sc(10, 3, "\x1b[1;31m\x1b7\x1b[m\x1b8X")
	if a := s.ANSI(); a != "\x1b[0;1;31mX\x1b[0m" {
		t.Fatalf("restored rendition: %q", a)
	}
}

func TestWide(t *testing.T) {
	runCases(t, wideCases)
	s := sc(10, 2, "你好")
	if l := s.Lines()[0]; l != "你好" {
		t.Fatalf("Lines: %q", l)
	}
}

func TestAltScreen(t *testing.T) {
	runCases(t, altCases)
	s := sc(10, 4, "\x1b[?1049h")
	if !s.AltScreen() {
		t.Fatal("AltScreen false after ?1049h")
	}
	s.Write([]byte("\x1b[?1049l"))
	if s.AltScreen() {
		t.Fatal("AltScreen true after ?1049l")
	}
}

func TestModesAndIgnored(t *testing.T) {
	runCases(t, ignoredCases)
	s := sc(10, 3, "\x1b[?25l")
	if _, _, vis := s.Cursor(); vis {
		t.Fatal("cursor visible after ?25l")
	}
	s.Write([]byte("\x1b[?25h"))
	if _, _, vis := s.Cursor(); !vis {
		t.Fatal("cursor hidden after ?25h")
	}
}
