package ipc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMoreLines(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"one":             "",
		"one\n":           "",
		"\n\none\n  \n":   "",
		"one\ntwo":        " (+1 line)",
		"one\n\ntwo\nthr": " (+2 lines)",
	} {
		if got := MoreLines(in); got != want {
			t.Errorf("MoreLines(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBoundDetail: a detail above MaxPromptDetail is cut on a rune
// boundary to exactly the cap, with a marker naming both sizes.
func TestBoundDetail(t *testing.T) {
	if s := strings.Repeat("a", MaxPromptDetail); BoundDetail(s) != s {
		t.Fatal("a detail at the cap was changed")
	}
	s := strings.Repeat("é", MaxPromptDetail) // 2 bytes a rune
	got := BoundDetail(s)
	if len(got) > MaxPromptDetail || len(got) < MaxPromptDetail-1 || !utf8.ValidString(got) ||
		!strings.HasSuffix(got, "\n… [cut: 131072 bytes in all, 65536 shown]") {
		t.Fatalf("cut to %d bytes, valid %v, ending %q", len(got), utf8.ValidString(got), got[len(got)-60:])
	}
}
