package testutil

import (
	"regexp"
	"strings"
)

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// ScreenRow is the line of a table screen (sup dash's) that shows name
// first, after an optional "> " selection mark (with its colours when the
// screen has them); "" when none does.
func ScreenRow(screen, name string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimLeft(sgr.ReplaceAllString(l, ""), "> "), name+" ") {
			return l
		}
	}
	return ""
}
