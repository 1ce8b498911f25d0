// Package shellquote quotes words for a POSIX shell: the one quoting
// function of sup, shared by the hook installer, the broker's spawn
// command and ssh command lines, the tmux key bindings and the tests.
package shellquote

import "strings"

// Quote returns s as one word for a POSIX shell: as it is when it holds
// only characters no shell treats specially (letters, digits and
// @%+=:,./_-), else in single quotes, each ' written as '\”. The empty
// string is ”.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, unsafe) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteHome is Quote leaving a leading ~ or ~/ unquoted, so that the
// shell expands it to the home directory: for a path the user wrote for
// another host, such as ~/bin/sup in hosts: (ssh hands the remote login
// shell its command line). The rest is quoted as Quote quotes it.
func QuoteHome(s string) string {
	if s == "~" {
		return s
	}
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		if rest == "" {
			return "~/"
		}
		return "~/" + Quote(rest)
	}
	return Quote(s)
}

// Join quotes each word and joins them with spaces: a command line.
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}

func unsafe(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
}
