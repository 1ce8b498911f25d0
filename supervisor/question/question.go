package question

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sup-tmux/sup/internal/config"
)

// Detector is a compiled config.Questions.
type Detector struct {
	ask, choice, courtesy, lead []*regexp.Regexp
	option                      *regexp.Regexp
}

// Compile checks and compiles c (config.Questions.Validate's errors name
// the field and the pattern); a nil c has no rule and compiles to nil.
func Compile(c *config.Questions) (*Detector, error) {
	if err := c.Validate(); err != nil || c == nil {
		return nil, err
	}
	d := &Detector{}
	for _, f := range []struct {
		src []string
		dst *[]*regexp.Regexp
	}{{c.Ask, &d.ask}, {c.Choice, &d.choice}, {c.Courtesy, &d.courtesy}, {c.OptionLead, &d.lead}} {
		for _, p := range f.src {
			*f.dst = append(*f.dst, regexp.MustCompile(p)) // valid: checked above
		}
	}
	if c.Option != "" {
		d.option = regexp.MustCompile(c.Option)
	}
	return d, nil
}

// Limits.
const (
	// MaxInput: only this many bytes from the message's end are read; the
	// final paragraph is there.
	MaxInput = 16 << 10
	// MaxQuestion bounds the question returned (one line of a list).
	MaxQuestion = 200
)

// Why names the part of the rule that decided.
type Why string

// The reasons a turn asks.
const (
	WhyLast    Why = "last_sentence" // the final paragraph ends with a question
	WhyAsk     Why = "addressed"     // a question in it addresses the human
	WhyChoice  Why = "choice"        // it asks for a decision without a question mark
	WhyOptions Why = "options"       // it offers options under a lead-in
)

// Result is Detect's verdict.
type Result struct {
	Asked    bool
	Why      Why
	Question string // the question, one line, as the message wrote it
}

// Detect reads msg (a turn's last assistant message). A nil Detector
// never finds a question.
func (d *Detector) Detect(msg string) Result {
	if d == nil || msg == "" {
		return Result{}
	}
	if len(msg) > MaxInput {
		msg = msg[len(msg)-MaxInput:]
		for len(msg) > 0 && !utf8.RuneStart(msg[0]) {
			msg = msg[1:]
		}
	}
	msg = strings.ToValidUTF8(strings.ReplaceAll(msg, "\r\n", "\n"), "\uFFFD")
	masked := Mask(msg)
	orig, prose := finalBlock(strings.Split(msg, "\n"), strings.Split(masked, "\n"), d.option)
	if len(prose) == 0 {
		return Result{}
	}
	var questions []string // question sentences, as written
	lastIsQuestion := false
	for i, line := range prose {
		for _, sp := range sentences(line) {
			s := strings.TrimSpace(line[sp[0]:sp[1]])
			if s == "" || !endsWithQuestion(s) || matchAny(d.courtesy, cleanSentence(s)) {
				continue
			}
			q := cleanSentence(orig[i][sp[0]:sp[1]])
			questions = append(questions, q)
			if i == len(prose)-1 && sp[1] >= len(strings.TrimRight(line, " \t")) {
				lastIsQuestion = true
			}
			if matchAny(d.ask, cleanSentence(s)) {
				return Result{Asked: true, Why: WhyAsk, Question: oneLine(q)}
			}
		}
	}
	if lastIsQuestion {
		return Result{Asked: true, Why: WhyLast, Question: oneLine(questions[len(questions)-1])}
	}
	for i, line := range prose {
		for _, sp := range sentences(line) {
			if matchAny(d.choice, cleanSentence(line[sp[0]:sp[1]])) {
				return Result{Asked: true, Why: WhyChoice, Question: oneLine(cleanSentence(orig[i][sp[0]:sp[1]]))}
			}
		}
	}
	if q, ok := d.options(orig, prose); ok {
		return Result{Asked: true, Why: WhyOptions, Question: oneLine(q)}
	}
	return Result{}
}

// options: two or more option lines, the first right under a lead-in
// that presents them.
func (d *Detector) options(orig, prose []string) (string, bool) {
	if d.option == nil {
		return "", false
	}
	for i := 1; i < len(prose); i++ {
		if !d.option.MatchString(prose[i]) || !matchAny(d.lead, strings.TrimSpace(prose[i-1])) {
			continue
		}
		var opts []string
		for j := i; j < len(prose) && d.option.MatchString(prose[j]); j++ {
			opts = append(opts, strings.TrimSpace(orig[j]))
		}
		if len(opts) >= 2 {
			return strings.TrimSpace(orig[i-1]) + " " + strings.Join(opts, " / "), true
		}
	}
	return "", false
}

// finalBlock is the final paragraph of the masked lines (and the same
// lines as written), with the paragraph before it when it is an option
// list (its lead-in). Blank lines are dropped.
func finalBlock(orig, masked []string, option *regexp.Regexp) (o, m []string) {
	end := len(masked)
	for end > 0 && strings.TrimSpace(masked[end-1]) == "" {
		end--
	}
	start := end
	for start > 0 && strings.TrimSpace(masked[start-1]) != "" {
		start--
	}
	if option != nil && start < end && allMatch(option, masked[start:end]) {
		// An option list alone: its lead-in is the paragraph above.
		for start > 0 && strings.TrimSpace(masked[start-1]) == "" {
			start--
		}
		for start > 0 && strings.TrimSpace(masked[start-1]) != "" {
			start--
		}
	}
	for i := start; i < end; i++ {
		if strings.TrimSpace(masked[i]) != "" {
			o, m = append(o, orig[i]), append(m, masked[i])
		}
	}
	return o, m
}

func allMatch(re *regexp.Regexp, lines []string) bool {
	for _, l := range lines {
		if !re.MatchString(l) {
			return false
		}
	}
	return true
}

// sentences splits a line into [start, end) spans, each ending after its
// terminator run (. ! ? …, closing quotes and brackets) when whitespace
// follows, or at the line's end.
func sentences(line string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		if r != '.' && r != '!' && r != '?' && r != '…' {
			continue
		}
		j := i
		for j < len(line) {
			r2, s2 := utf8.DecodeRuneInString(line[j:])
			if !strings.ContainsRune(".!?…)]\"'”’*_", r2) {
				break
			}
			j += s2
		}
		if j == len(line) || line[j] == ' ' || line[j] == '\t' {
			out = append(out, [2]int{start, j})
			start, i = j, j
		}
	}
	if strings.TrimSpace(line[start:]) != "" {
		out = append(out, [2]int{start, len(line)})
	}
	// A tail without a letter or digit (an emoji, a dash) belongs to the
	// sentence before it: "Ready? 🙂" is one question.
	if n := len(out); n >= 2 && !strings.ContainsFunc(line[out[n-1][0]:out[n-1][1]], func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}) {
		out[n-2][1] = out[n-1][1]
		out = out[:n-1]
	}
	return out
}

// endsWithQuestion: the sentence's last mark, past closing quotes,
// brackets, markdown emphasis and emoji, is a question mark.
func endsWithQuestion(s string) bool {
	s = strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(")]}\"'”’*_~>", r) || unicode.Is(unicode.So, r) ||
			unicode.Is(unicode.Sk, r) || r == '\uFE0F' || r == '\u200D'
	})
	return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？")
}

// cleanSentence trims a sentence and drops list markers and markdown
// emphasis, so patterns read the words.
func cleanSentence(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "-*+#> \t")
	s = emphasis.Replace(s)
	return strings.TrimSpace(s)
}

var emphasis = strings.NewReplacer("**", "", "__", "")

func matchAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// oneLine makes s one line of at most MaxQuestion runes, control and
// format characters (escapes, bidi overrides) dropped: it is display text
// from an untrusted agent.
func oneLine(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
	}), " ")
	if utf8.RuneCountInString(s) > MaxQuestion {
		s = string([]rune(s)[:MaxQuestion-1]) + "…"
	}
	return s
}
