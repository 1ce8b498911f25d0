package shellquote

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestQuote: safe words stay bare, anything else is single-quoted, and
// /bin/sh reads every quoted word back as the original.
func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/usr/bin/sup", "/usr/bin/sup"},
		{"a@b%c+d=e:f,g.h_i-j", "a@b%c+d=e:f,g.h_i-j"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"a\nb", "'a\nb'"},
		{"~", "'~'"},
	}
	for _, tt := range tests {
		got := Quote(tt.in)
		if got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+got).Output()
		if err != nil || string(out) != tt.in {
			t.Errorf("sh read %s as %q (%v), want %q", got, out, err, tt.in)
		}
	}
	if got := Join("sup", "start", "my doc.md"); got != "sup start 'my doc.md'" {
		t.Errorf("Join = %s", got)
	}
}

// TestQuoteHome: a leading ~ expands to $HOME, the rest is read as
// written.
func TestQuoteHome(t *testing.T) {
	tests := []struct{ in, want string }{
		{"~", "$HOME"}, {"~/bin/sup", "$HOME/bin/sup"}, {"~/my dir/s'up", "$HOME/my dir/s'up"},
		{"/usr/bin/sup", "/usr/bin/sup"}, {"~user/x", "~user/x"}, {"$(touch x)", "$(touch x)"},
	}
	for _, tt := range tests {
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+QuoteHome(tt.in)).Output()
		want := strings.ReplaceAll(tt.want, "$HOME", os.Getenv("HOME"))
		if err != nil || string(out) != want {
			t.Errorf("sh read QuoteHome(%q) = %s as %q (%v), want %q", tt.in, QuoteHome(tt.in), out, err, want)
		}
	}
}
