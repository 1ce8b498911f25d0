package safetext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpus is the hostile corpus (internal/testing/testutil.Hostile is the same
// list for the e2e tests; this package stays free of the Linux-only rig).
var corpus = map[string]struct{ in, field string }{
	"osc52":   {"copy \x1b]52;c;cm0=\x07 done", `copy \x1b]52;c;cm0=\x07 done`},
	"clear":   {"\x1b[2Jcleared", `\x1b[2Jcleared`},
	"title":   {"\x1b]0;t\x07x", `\x1b]0;t\x07x`},
	"c1csi":   {"c1 \u009b2J", `c1 \u009b2J`},
	"bidi":    {"file \u202egnp.exe", `file \u202egnp.exe`},
	"isolate": {"a\u2066b\u2069c\u200e\u061c", `a\u2066b\u2069c\u200e\u061c`},
	"cr":      {"ok\rEVIL", `ok\rEVIL`},
	"newline": {"row\nforged", `row\nforged`},
	"tab":     {"a\tb", `a\tb`},
	"del":     {"x\x7fy", `x\x7fy`},
	"invalid": {"bad \xff utf8", `bad \xff utf8`},
	"linesep": {"a\u2028b", `a\u2028b`},
	"tmux":    {"#(touch f) #{pane_id} #[fg=red]", "#(touch f) #{pane_id} #[fg=red]"},
	"unicode": {"café ✓ 日本", "café ✓ 日本"},
}

func TestField(t *testing.T) {
	for name, c := range corpus {
		if got := Field(c.in); got != c.field {
			t.Errorf("%s: Field(%q) = %q, want %q", name, c.in, got, c.field)
		}
	}
}

func TestText(t *testing.T) {
	if got, want := Text("one\ntwo\x1b[2J\r"), `one`+"\n"+`two\x1b[2J\r`; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	// CR LF ends a row (sup screen --ansi replays rows so); a CR alone
	// would let the rest of its line overwrite what is shown.
	if got, want := Text("rows\r\nkept\rnot\r"), "rows\r\nkept"+`\rnot\r`; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if got, want := Field("a\r\nb"), `a\r\nb`; got != want {
		t.Errorf("Field = %q, want %q (one line: no CR LF kept)", got, want)
	}
}

// TestFieldCap: a 1 MB line comes back as MaxField bytes and an ellipsis,
// whether it needed escapes or not.
func TestFieldCap(t *testing.T) {
	for _, in := range []string{strings.Repeat("A", 1<<20), strings.Repeat("\x1b", 1<<20), strings.Repeat("é", 1<<19)} {
		got := Field(in)
		if len(got) > 4*MaxField+len("…") || !strings.HasSuffix(got, "…") {
			t.Errorf("Field of %d bytes = %d bytes ending %q", len(in), len(got), got[max(0, len(got)-8):])
		}
	}
	if got := Field(strings.Repeat("A", MaxField)); got != strings.Repeat("A", MaxField) {
		t.Errorf("a field of exactly MaxField bytes was cut")
	}
	// The cap falls inside a 4-byte rune: the cut is before it, the
	// result valid UTF-8 (a remote state's long field reached this).
	for pad := MaxField - 3; pad <= MaxField; pad++ {
		got := Field(strings.Repeat("A", pad) + "𛀀tail")
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
			t.Errorf("pad %d: Field = …%q, want valid UTF-8 ending in …", pad, got[max(0, len(got)-8):])
		}
	}
}

// TestSafeNoAlloc: safe text is returned as it is, without allocating (the
// cost on sup ls).
func TestSafeNoAlloc(t *testing.T) {
	s := "deployer · ready · waiting on you: Run the migration? (y/n) ✓"
	if n := testing.AllocsPerRun(100, func() { _ = Field(s) }); n != 0 {
		t.Errorf("Field of safe text allocated %v times", n)
	}
}

func TestJSON(t *testing.T) {
	for name, c := range corpus {
		js, err := Marshal(map[string]string{"summary": c.in})
		if err != nil {
			t.Fatal(err)
		}
		if bad := rawControl(string(js)); bad >= 0 {
			t.Errorf("%s: JSON %q holds raw %U", name, js, bad)
		}
		var back map[string]string
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := strings.ToValidUTF8(c.in, "\uFFFD"); back["summary"] != want {
			t.Errorf("%s: JSON read back %q, want %q", name, back["summary"], want)
		}
	}
	var b strings.Builder
	e := NewEncoder(&b)
	e.SetIndent("  ")
	if err := e.Encode([]string{"\u202e", "<&>"}); err != nil {
		t.Fatal(err)
	}
	if want := "[\n  \"\\u202e\",\n  \"<&>\"\n]\n"; b.String() != want {
		t.Errorf("Encoder wrote %q, want %q", b.String(), want)
	}
}

// rawControl is the first rune of s a terminal acts on, -1 when none.
func rawControl(s string) rune {
	for _, r := range s {
		if Unsafe(r) || r == utf8.RuneError {
			return r
		}
	}
	return -1
}

func FuzzField(f *testing.F) {
	for _, c := range corpus {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, out := range []string{Field(s), Text(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
			}
			for j, r := range out {
				// Text keeps line ends: LF, and CR only right before LF
				// (a CR alone would move the cursor back over a line).
				lineEnd := i == 1 && (r == '\n' || r == '\r' && strings.HasPrefix(out[j+1:], "\n"))
				if r != '\n' && !lineEnd && Unsafe(r) || r == utf8.RuneError && !strings.ContainsRune(s, utf8.RuneError) {
					t.Fatalf("%q came out as %q, holding %U", s, out, r)
				}
			}
		}
		f := Field(s)
		if strings.ContainsRune(f, '\n') {
			t.Fatalf("Field(%q) = %q holds a newline", s, f)
		}
		if len(s) <= MaxField && strings.HasSuffix(f, "…") && !strings.HasSuffix(s, "…") {
			t.Fatalf("Field cut %d bytes", len(s))
		}
		if len(f) > 6*MaxField+len("…") {
			t.Fatalf("Field of %d bytes is %d bytes", len(s), len(f))
		}
		js, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if r := rawControl(string(js)); r >= 0 && !(r == utf8.RuneError && strings.ContainsRune(s, utf8.RuneError)) {
			t.Fatalf("Marshal(%q) = %q holds %U", s, js, r)
		}
		var back string
		if err := json.Unmarshal(js, &back); err != nil || back != strings.ToValidUTF8(s, "\uFFFD") && utf8.ValidString(s) {
			t.Fatalf("Marshal(%q) = %q reads back as %q (%v)", s, js, back, err)
		}
	})
}

func TestCopy(t *testing.T) {
	type inner struct{ Title string }
	type state struct {
		Name    string
		N       int
		Ptr     *inner
		List    []string
		Counts  map[string]int
		Nested  []inner
		private string
	}
	in := state{Name: "a\x1b]0;x\x07", N: 3, Ptr: &inner{"\u202e"}, List: []string{"\r"}, Counts: map[string]int{"\u009b": 1},
		Nested: []inner{{"\n"}}, private: "\x1b"}
	out := Copy(in)
	if out.Name != `a\x1b]0;x\x07` || out.N != 3 || out.Ptr.Title != `\u202e` || out.List[0] != `\r` || out.Counts[`\u009b`] != 1 ||
		out.Nested[0].Title != `\n` || out.private != "\x1b" {
		t.Errorf("Copy = %+v (%+v)", out, *out.Ptr)
	}
	if in.Ptr.Title != "\u202e" || in.List[0] != "\r" || in.Nested[0].Title != "\n" {
		t.Errorf("Copy changed its input: %+v", in)
	}
}

func TestTextSGR(t *testing.T) {
	in := "\x1b[1;31mred\x1b[0m\n\x1b]52;c;x\x07\x1b[2J\u202e"
	if got, want := TextSGR(in), "\x1b[1;31mred\x1b[0m\n"+`\x1b]52;c;x\x07\x1b[2J\u202e`; got != want {
		t.Errorf("TextSGR = %q, want %q", got, want)
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := &Writer{W: &b}
	for _, p := range []string{"routed to a\x1b]0;x", "\x07 (ok)\nsecond \u202e", "line"} {
		w.Write([]byte(p))
	}
	w.Close()
	if want := `routed to a\x1b]0;x\x07 (ok)` + "\n" + `second \u202eline` + "\n"; b.String() != want {
		t.Errorf("Writer wrote %q, want %q", b.String(), want)
	}
}
