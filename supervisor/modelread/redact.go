package modelread

import (
	"fmt"
	"regexp"
)

// Redacted replaces every secret Redact finds.
const Redacted = "[REDACTED]"

// builtinRedact are the secrets a terminal commonly shows: API keys of the
// big providers, cloud access keys, GitHub and Slack tokens, bearer
// tokens, JWTs, private key blocks, and the value of any "password: X"-like
// line. They err on the side of redacting: a screen read with a word
// missing is still read, a leaked key is not taken back.
var builtinRedact = []string{
	`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`,
	`\bsk-ant-[A-Za-z0-9_\-]{8,}`,
	`\bsk-[A-Za-z0-9_\-]{16,}`,
	`\b(AKIA|ASIA)[A-Z0-9]{16}\b`,
	`\bgh[pousr]_[A-Za-z0-9]{20,}`,
	`\bgithub_pat_[A-Za-z0-9_]{20,}`,
	`\bxox[abprs]-[A-Za-z0-9\-]{10,}`,
	`\bAIza[A-Za-z0-9_\-]{30,}`,
	`\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`,
	`(?i)\bbearer\s+[A-Za-z0-9_\-.=:/+]{8,}`,
	// Any run of 40 or more token characters: the tail of a key the
	// terminal wrapped onto the next line matches no prefix above, and a
	// screen loses nothing a model needs by it (hashes, blobs).
	`[A-Za-z0-9_\-+=]{40,}`,
	// The value after a password-, secret- or token-like name and a ':'
	// or '=' (password: hunter2, API_TOKEN=abc, "secret": "x").
	`(?i)(pass(word|wd|phrase)?|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)["']?\s*[:=]\s*["']?[^\s"']+`,
}

// Redactor removes secrets from screen text before it leaves the machine.
type Redactor struct {
	res []*regexp.Regexp
}

// NewRedactor compiles the built-in patterns and the user's (config
// `model.redact`); a bad user pattern is an error naming it.
func NewRedactor(user []string) (*Redactor, error) {
	r := &Redactor{}
	for _, p := range builtinRedact {
		r.res = append(r.res, regexp.MustCompile(p))
	}
	for i, p := range user {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("model: redact[%d] %q: bad regex: %v", i, p, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("model: redact[%d] %q: matches the empty string (it would redact nothing useful and everything between)", i, p)
		}
		r.res = append(r.res, re)
	}
	return r, nil
}

// Redact returns text with every match of every pattern replaced by
// Redacted.
func (r *Redactor) Redact(text string) string {
	for _, re := range r.res {
		text = re.ReplaceAllLiteralString(text, Redacted)
	}
	return text
}
