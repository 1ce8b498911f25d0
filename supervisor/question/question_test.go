package question

import (
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/config"
)

// testConfig is a small rule of the profiles' shape, for the parts of
// the rule that do not depend on wording.
var testConfig = &config.Questions{
	Ask:        []string{`(?i)\b(you|your)\b`, `(?i)\b(should|can) I\b`},
	Choice:     []string{`(?i)\bplease confirm\b`},
	Courtesy:   []string{`(?i)^anything else\b`},
	Option:     `^\s*(?:[0-9]{1,2}|[a-z])[.)]\s+\S`,
	OptionLead: []string{`(?i)\boptions:$`},
}

func mustCompile(t *testing.T, c *config.Questions) *Detector {
	t.Helper()
	d, err := Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDetect(t *testing.T) {
	d := mustCompile(t, testConfig)
	for _, c := range []struct {
		msg  string
		why  Why
		want string
	}{
		{"Should I delete the 3 stale branches?", WhyAsk, "Should I delete the 3 stale branches?"},
		{"Done. Ready?", WhyLast, "Ready?"},
		{"Should I go? It is late.", WhyAsk, "Should I go?"},
		{"Is it late? It is.", "", ""},
		{"Anything else?", "", ""},
		{"Run `a?b` now.", "", ""},
		{"Run\n```\nok?\n```", "", ""},
		{"See https://x.org/?q=1", "", ""},
		{`It said "why?" twice.`, "", ""},
		{`It said "a" "why?" twice.`, "", ""},
		{"> why?\n\nFixed.", "", ""},
		{"Please confirm the drop.", WhyChoice, "Please confirm the drop."},
		{"Two options:\n1. a\n2. b", WhyOptions, "Two options: 1. a / 2. b"},
		{"Changes:\n1. a\n2. b", "", ""},
		{"Can I push?\n\n1. a\n2. b", WhyAsk, "Can I push?"},
		{"Should I?\n\nNo, done.", "", ""},
		{"Ok? 🙂", WhyLast, "Ok? 🙂"},
		{"", "", ""},
		{"\n\n  \n", "", ""},
	} {
		r := d.Detect(c.msg)
		if r.Asked != (c.why != "") || r.Why != c.why || r.Question != c.want {
			t.Errorf("Detect(%q) = %+v, want why %q question %q", c.msg, r, c.why, c.want)
		}
	}
}

func TestNilDetectorAsksNothing(t *testing.T) {
	var c *config.Questions
	d, err := Compile(c)
	if err != nil || d != nil {
		t.Fatalf("nil config: %v %v", d, err)
	}
	if r := d.Detect("Should I?"); r.Asked {
		t.Fatalf("a nil detector asked: %+v", r)
	}
}

func TestCompileNamesTheBadPattern(t *testing.T) {
	_, err := Compile(&config.Questions{Choice: []string{"ok", "(unclosed"}})
	if err == nil || !strings.Contains(err.Error(), "questions.choice[1]") || !strings.Contains(err.Error(), "(unclosed") {
		t.Fatalf("err = %v, want it to name questions.choice[1] and the pattern", err)
	}
	_, err = Compile(&config.Questions{Option: "["})
	if err == nil || !strings.Contains(err.Error(), "questions.option") {
		t.Fatalf("err = %v, want it to name questions.option", err)
	}
}

// The question is read from the message's end: a long message keeps it.
func TestLongMessageKeepsItsEnd(t *testing.T) {
	d := mustCompile(t, testConfig)
	msg := strings.Repeat("word ", MaxInput) + "\n\nShould I push?"
	if r := d.Detect(msg); !r.Asked || r.Question != "Should I push?" {
		t.Fatalf("Detect(long) = %+v", r)
	}
	long := "Should I " + strings.Repeat("x", 500) + "?"
	if r := d.Detect(long); len([]rune(r.Question)) != MaxQuestion {
		t.Fatalf("question of %d runes, want %d", len([]rune(r.Question)), MaxQuestion)
	}
}

func TestMaskKeepsOffsets(t *testing.T) {
	for _, s := range []string{"a `b?` c", "```\nx?\n```\nok", "“q?” é https://é.org/?x", "'it' don't 'x?'"} {
		m := Mask(s)
		if len(m) != len(s) || strings.Count(m, "\n") != strings.Count(s, "\n") || strings.Contains(m, "?") {
			t.Errorf("Mask(%q) = %q: want the same length and lines, no ?", s, m)
		}
	}
}
