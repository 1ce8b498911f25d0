//go:build linux

package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"
)

// exitUsage is the status of a command line sup cannot read: an unknown
// verb or flag, a flag without its value (specs/broker.md, "Words").
const exitUsage = 2

// usageError is a command line sup cannot read, said in one line; run
// prints it and exits exitUsage.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// oneLineUsageErrors makes every command's usage error one line naming the
// command and its --help, in place of urfave's "Incorrect Usage", the
// error and the whole help page.
func oneLineUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		if len(c.Commands) > 0 && c.Action == nil {
			// `sup hooks bogus`: urfave's "No help topic", exit 3.
			c.Action = func(_ context.Context, cmd *cli.Command) error {
				if cmd.Args().Len() == 0 {
					return cli.ShowSubcommandHelp(cmd)
				}
				return unknownVerb(cmd, cmd.Args().First())
			}
		}
		oneLineUsageErrors(c.Commands)
	}
}

var (
	unknownFlag = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)
	flagNoValue = regexp.MustCompile(`^flag needs an argument: -*(.+)$`)
	badValue    = regexp.MustCompile(`^invalid value "(.*)" for flag -+([^:]+): (.*)$`)
)

func onUsageError(_ context.Context, cmd *cli.Command, err error, _ bool) error {
	path := strings.TrimSpace(strings.TrimPrefix(cmd.FullName(), cmd.Root().Name))
	what := err.Error()
	switch m := (struct{ u, n, b []string }{unknownFlag.FindStringSubmatch(what), flagNoValue.FindStringSubmatch(what), badValue.FindStringSubmatch(what)}); {
	case m.u != nil:
		what = "unknown flag " + dashed(m.u[1])
		var names []string
		for _, f := range cmd.VisibleFlags() {
			names = append(names, f.Names()...)
		}
		if near := nearest(m.u[1], names); len(near) > 0 && len(m.u[1]) > 2 {
			what += " (did you mean " + dashed(near[0]) + "?)"
		}
	case m.n != nil:
		what = dashed(m.n[1]) + " needs a value"
	case m.b != nil:
		what = fmt.Sprintf("%s %q: %s", dashed(m.b[2]), m.b[1], m.b[3])
	}
	help := strings.Join(strings.Fields("sup "+path+" --help"), " ")
	if path != "" {
		what = path + ": " + what
	}
	return usageError{what + "; " + help}
}

// dashed is a flag's name as typed: --name, or -n for one letter.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// nearest are the candidates close enough to word to be what was meant
// (a prefix of at least two letters, or at most one edit per three
// letters, and at least one), nearest first; none when nothing is close:
// `sup bogus` suggests nothing rather than hooks.
func nearest(word string, candidates []string) []string {
	best, bestD := []string{}, max(1, len(word)/3)+1
	for _, c := range candidates {
		d := editDistance(word, c)
		if strings.HasPrefix(c, word) && len(word) >= 2 {
			d = min(d, 1)
		}
		switch {
		case d < bestD:
			best, bestD = []string{c}, d
		case d == bestD && !slices.Contains(best, c):
			best = append(best, c)
		}
	}
	return best
}

// usagef is a usageError for arguments the command cannot take (one too
// many, a missing TARGET): exit status 2 like an unknown flag, with the
// message saying what is wanted.
func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}
