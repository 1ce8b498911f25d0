package question

import (
	"bytes"
	"regexp"
	"strings"
)

// Patterns of what is not the agent's own prose.
var (
	urlRe = regexp.MustCompile(`(?i)\b(?:[a-z][a-z0-9+.-]*://|www\.)[^\s<>]+`)
	// Quotes that open after a space or bracket (or at the line's start)
	// and close before one or punctuation, so apostrophes (don't, users')
	// are not quotes. Group 1 is the quoted text with its marks.
	quoteRe = regexp.MustCompile(`(?:^|[\s(\[{:])("[^"\n]*"|“[^”\n]*”|‘[^’\n]*’|'[^'\n]*'|«[^»\n]*»)(?:$|[\s.,;:!?)\]}])`)
)

// Mask returns msg with everything that is not the agent's own prose —
// fenced code blocks, inline code spans, URLs, quoted text, block quotes
// and table rows — replaced by spaces, byte for byte, so offsets in the
// result are offsets in msg and its lines stay where they were.
func Mask(msg string) string {
	b := []byte(msg)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	fence := "" // the open fence's marker, "" outside a block
	off := 0
	for _, line := range strings.SplitAfter(msg, "\n") {
		end := off + len(line)
		t := strings.TrimLeft(line, " \t")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				fence = ""
			}
			blank(off, end)
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			blank(off, end)
		case strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|"):
			blank(off, end)
		default:
			maskSpans(b[off:end])
		}
		off = end
	}
	return string(b)
}

// maskSpans blanks inline code, URLs and quotes in one line.
func maskSpans(line []byte) {
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if line[i] != '\n' {
				line[i] = ' '
			}
		}
	}
	// Code spans first: a URL or quote inside one is code. A run of n
	// backticks with no closing run after it has none after any later
	// run either: noClose keeps the scan linear on a line of unmatched
	// backticks.
	noClose := map[int]bool{}
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		close := -1
		if !noClose[n] {
			close = bytes.Index(line[i+n:], bytes.Repeat([]byte{'`'}, n))
		}
		if close < 0 {
			noClose[n] = true
			i += n
			continue
		}
		end := i + n + close + n
		blank(i, end)
		i = end
	}
	for _, m := range urlRe.FindAllIndex(line, -1) {
		blank(m[0], m[1])
	}
	// Again until none is left: a match takes the mark after its quote,
	// which the next quote needs before it ("a" "b"); a blanked quote is
	// spaces, so each pass ends at least one.
	for ms := quoteRe.FindAllSubmatchIndex(line, -1); len(ms) > 0; ms = quoteRe.FindAllSubmatchIndex(line, -1) {
		for _, m := range ms {
			blank(m[2], m[3])
		}
	}
}
