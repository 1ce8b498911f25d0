package modelread

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sup-tmux/sup/internal/config"
)

// Redacted replaces every secret Redact finds.
const Redacted = "[REDACTED]"

// A builtin is one built-in pattern. A pattern with a group named s
// redacts only that group (the password in user:password@, the value
// after NAME=), else the whole match. wrap: also looked for across a
// terminal's line wrap (joined, below). keep: a match it returns true for
// is left alone.
type builtin struct {
	pattern string
	wrap    bool
	keep    func(match string, wrapped bool) bool
}

// value is what follows a secret's name and its ':' or '=': a quoted
// string, or a run up to a space, a quote or a query string's separator.
const value = `(?P<s>"[^"\n]*"|'[^'\n]*'|[^\s"'&;]+)`

// border is what a terminal UI draws around wrapped text: a box's side and
// its padding.
const border = `[ \t]*(?:[│┃║|][ \t]*)?`

// builtinRedact are the secrets a terminal commonly shows (specs/detection.md,
// "The model reader", Privacy): private key blocks, API keys of the big
// providers, cloud access keys, GitHub, GitLab, Slack and Stripe tokens,
// webhook URLs, JWTs, bearer/basic/token authorization, a URL's
// user:password@, curl's -u, the value after a secret-like name and ':' or
// '=' (password: hunter2, DB_PW=x, "api_key": "x", ?key=, Azure's sig=),
// and long random-looking runs (the tail of a key the terminal wrapped).
// They err on the side of redacting: a screen read with a word missing is
// still read, a leaked key is not taken back.
var builtinRedact = []builtin{
	// A private key block from its header (which may itself have been
	// wrapped, or have only its tail left on screen) to its END line or
	// the end of the screen.
	{pattern: `(?:-----BEGIN ?[A-Z0-9 ]*PRIVATE ?KEY|(?m:^` + border + `[A-Z][A-Z ]*KEY))( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`, wrap: true},
	// A key body whose header scrolled off: base64 lines up to the END.
	{pattern: `(?m)(?:^` + border + `[A-Za-z0-9+/=]{4,}` + border + `\n)+` + border + `-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`},
	{pattern: `\bsk-ant-[A-Za-z0-9_\-]{8,}`, wrap: true},
	{pattern: `\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}`, wrap: true},
	{pattern: `\bsk-[A-Za-z0-9_\-]{16,}`, wrap: true},
	{pattern: `\b(?:AKIA|ASIA)[A-Z0-9]{16}`, wrap: true},
	{pattern: `\bgh[pousr]_[A-Za-z0-9]{20,}`, wrap: true},
	{pattern: `\bgithub_pat_[A-Za-z0-9_]{20,}`, wrap: true},
	{pattern: `\bglpat-[A-Za-z0-9_\-]{20,}`, wrap: true},
	{pattern: `\bxox[abprse]-[A-Za-z0-9\-]{10,}`, wrap: true},
	{pattern: `\bAIza[A-Za-z0-9_\-]{30,}`, wrap: true},
	{pattern: `\bnpm_[A-Za-z0-9]{30,}`, wrap: true},
	{pattern: `\bhf_[A-Za-z0-9]{30,}`, wrap: true},
	{pattern: `hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]+`, wrap: true},
	{pattern: `discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_\-]+`, wrap: true},
	{pattern: `\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`, wrap: true},
	// A URL's user:password@ (the password may hold '@': the authority
	// ends at the last one).
	{pattern: `\b[A-Za-z][A-Za-z0-9+.\-]*://(?P<s>[^\s/?#@:]*:[^\s/?#]*)@`},
	// Authorization: Basic …, token …, Bearer …, or a bare scheme-less
	// value; and a bearer/basic token anywhere.
	{pattern: `(?i)\bauthori[sz]ation["']?[ \t]*[:=][ \t]*["']?(?P<s>(?:[A-Za-z0-9\-]+[ \t]+)?[^\s"']+)`},
	{pattern: `(?i)\b(?:bearer|basic)[ \t]+[A-Za-z0-9_\-.=:/+~]{8,}`},
	// curl -u user:password, --user=user:password.
	{pattern: `(?:^|\s)(?:-u|--user|--proxy-user)[ \t=]+["']?(?P<s>[^\s"':]+:[^\s"']+)`},
	// The value after a secret-like name and ':' or '=': password,
	// passwd, passphrase, secret, token, credentials, auth, and any name
	// ending in _KEY, -KEY, .KEY, _PW, _PWD, _PASS (API_KEY=, DB_PW=,
	// MYSQL_PWD=), apikey, accountkey, secretkey.
	{pattern: `(?i)(?:pass(?:word|wd|phrase)?|secret|token|credentials?|auth|api[_-]?key|access[_-]?key|private[_-]?key|account[_-]?key|secret[_-]?key|[a-z0-9][_.\-](?:key|pw|pwd|pass))["']?[ \t]*[:=][ \t]*` + value},
	// After '=' only, as a query parameter or an environment line: key=,
	// sig= (Azure SAS), signature=, pw=, pwd=, code=, client_secret= …
	{pattern: `(?i)(?:^|[?&;\s])(?:key|sig|signature|pw|pwd|code|sas|x-amz-signature|x-amz-credential|x-goog-signature)=` + value},
	// Any run of 40 or more token characters that looks random (not a
	// path: at most one '/' per 12 characters; across a wrap, holding a
	// digit and a letter, so two identifiers on adjacent lines are not
	// one): the tail of a key the terminal wrapped onto the next line
	// matches no prefix above, a key body without its header neither, and
	// a screen loses nothing a model needs by it (hashes, blobs).
	{pattern: `[A-Za-z0-9_\-+=/]{40,}`, wrap: true, keep: pathOrWords},
}

// pathOrWords says a long run is not a secret: a path (slashes every few
// characters), or, when found only across a line wrap, a run without a
// digit or without a letter.
func pathOrWords(m string, wrapped bool) bool {
	if strings.Count(m, "/")*12 > len(m) {
		return true
	}
	return wrapped && (!strings.ContainsAny(m, "0123456789") ||
		!strings.ContainsAny(m, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
}

type rule struct {
	re    *regexp.Regexp
	group int // the subexpression to redact; 0: the whole match
	wrap  bool
	keep  func(string, bool) bool
}

// Redactor removes secrets from screen text before it leaves the machine.
type Redactor struct {
	rules []rule
}

// NewRedactor compiles the built-in patterns and the user's (config
// `model.redact`); a bad user pattern is an error naming it.
func NewRedactor(user []string) (*Redactor, error) {
	r := &Redactor{}
	for _, b := range builtinRedact {
		re := regexp.MustCompile(b.pattern)
		r.rules = append(r.rules, rule{re: re, group: max(re.SubexpIndex("s"), 0), wrap: b.wrap, keep: b.keep})
	}
	res, err := config.RedactPatterns(user)
	if err != nil {
		return nil, err
	}
	for _, re := range res {
		r.rules = append(r.rules, rule{re: re})
	}
	return r, nil
}

// Redact returns text with every secret replaced by Redacted. Every
// pattern looks at the text as shown, and the wrap patterns also at the
// text with its line wraps joined (joinWraps); what any of them finds is
// redacted at once, so no pattern sees another's [REDACTED] in the middle
// of a secret.
func (r *Redactor) Redact(text string) string {
	var spans [][2]int
	for _, ru := range r.rules {
		for _, m := range ru.re.FindAllStringSubmatchIndex(text, -1) {
			a, b := m[2*ru.group], m[2*ru.group+1]
			if a < 0 || a == b || (ru.keep != nil && ru.keep(text[m[0]:m[1]], false)) {
				continue
			}
			spans = append(spans, [2]int{a, b})
		}
	}
	return replaceSpans(text, append(spans, r.wrapped(text)...))
}

// word is a line's first word: a wrap match that ends in one took the
// next line's text, not a key's tail (a key that really ends in a short
// run of letters after a wrap keeps that run).
var word = regexp.MustCompile(`^[A-Z]?[a-z]+$`)

// wrapped finds the wrap rules' secrets in the text with its line wraps
// joined and returns each line's part of them. A wrap is a line as wide
// as the screen (its widest line; a TUI's box drawn around it included)
// that ends in a token character, followed by a line that starts with one
// (after a box's border and padding): how a terminal or a TUI draws a long
// token over two lines. A secret within one line is the plain pass's.
func (r *Redactor) wrapped(text string) [][2]int {
	joined, at := joinWraps(text)
	if at == nil {
		return nil
	}
	var spans [][2]int
	for _, ru := range r.rules {
		if !ru.wrap {
			continue
		}
		for _, m := range ru.re.FindAllStringSubmatchIndex(joined, -1) {
			a, b := m[2*ru.group], m[2*ru.group+1]
			if a < 0 || a == b || at[b-1]-at[a] == b-1-a { // empty, or within one line
				continue
			}
			if ru.keep != nil && ru.keep(joined[m[0]:m[1]], true) {
				continue
			}
			// Each run of consecutive original bytes is one line's part.
			var parts [][2]int
			start := a
			for i := a + 1; i <= b; i++ {
				if i == b || at[i] != at[i-1]+1 {
					parts = append(parts, [2]int{at[start], at[i-1] + 1})
					start = i
				}
			}
			if last := parts[len(parts)-1]; word.MatchString(text[last[0]:last[1]]) {
				continue
			}
			spans = append(spans, parts...)
		}
	}
	return spans
}

// minWrapWidth: a screen narrower than this is not taken to wrap (a few
// short lines are not one token).
const minWrapWidth = 16

// joinWraps returns text with each wrap break removed and, for each byte
// of the result, its offset in text; nil when there is no break.
func joinWraps(text string) (string, []int) {
	width := 0
	for line := range strings.Lines(text) {
		width = max(width, utf8.RuneCountInString(strings.TrimRight(line, "\r\n")))
	}
	if width < minWrapWidth {
		return text, nil
	}
	var b strings.Builder
	var at []int
	last, lineStart := 0, 0 // text[last:] is not yet copied
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		full := utf8.RuneCountInString(strings.TrimRight(text[lineStart:i], "\r")) == width
		lineStart = i + 1
		if !full {
			continue
		}
		// The break is text[j:k]: before it at most one space and a
		// box's border (a token a TUI broke fills its box), after it a
		// border and any indent.
		j := i
		if j > last && text[j-1] == '\r' {
			j--
		}
		if r, n := utf8.DecodeLastRuneInString(text[last:j]); isBorder(r) {
			j -= n
		}
		if j > last && (text[j-1] == ' ' || text[j-1] == '\t') {
			j--
		}
		k := i + 1
		for k < len(text) {
			r, n := utf8.DecodeRuneInString(text[k:])
			if !isPad(r) {
				break
			}
			k += n
		}
		if j == last || k == len(text) || !isToken(text[j-1]) || !isToken(text[k]) {
			continue
		}
		if at == nil {
			at = make([]int, 0, len(text))
		}
		for p := last; p < j; p++ {
			at = append(at, p)
		}
		b.WriteString(text[last:j])
		last = k
	}
	if at == nil {
		return text, nil
	}
	for p := last; p < len(text); p++ {
		at = append(at, p)
	}
	b.WriteString(text[last:])
	return b.String(), at
}

func isPad(r rune) bool { return r == ' ' || r == '\t' || isBorder(r) }

func isBorder(r rune) bool { return r == '│' || r == '┃' || r == '║' || r == '|' }

func isToken(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+/=_-", c) >= 0
}

// replaceSpans replaces each span of text (overlapping ones merged) with
// Redacted.
func replaceSpans(text string, spans [][2]int) string {
	if len(spans) == 0 {
		return text
	}
	slices.SortFunc(spans, func(x, y [2]int) int { return x[0] - y[0] })
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		if s[0] < pos { // overlaps the last one written: extend it
			pos = max(pos, s[1])
			continue
		}
		b.WriteString(text[pos:s[0]])
		b.WriteString(Redacted)
		pos = s[1]
	}
	b.WriteString(text[pos:])
	return b.String()
}
