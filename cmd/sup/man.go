//go:build linux

package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"
)

// manCommand is `sup man`: the manual page sup(1), in roff, generated from
// the command tree, so it never drifts from --help (`make install` writes
// it to $(PREFIX)/share/man/man1/sup.1; `man -l` reads it). Hidden: a
// build step, not a verb.
func manCommand() *cli.Command {
	return &cli.Command{
		Name: "man", Usage: "print the manual page sup(1) in roff (man -l - reads it)", Hidden: true,
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usagef("man: unexpected argument %q (it takes none)", cmd.Args().First())
			}
			return writeMan(os.Stdout, cmd.Root())
		},
	}
}

// writeMan writes root's manual page to w.
func writeMan(w io.Writer, root *cli.Command) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p(`.TH SUP 1 "" %s "User Commands"`, roffQuote("sup "+strings.Fields(root.Version + " ")[0]))
	p(".SH NAME")
	p(`sup \- %s`, roffText(root.Usage))
	p(".SH SYNOPSIS")
	p(".B sup")
	p(`.I COMMAND`)
	p(`[\fIFLAGS\fR] [\fIARGS\fR]`)
	p(".SH DESCRIPTION")
	p(roffText("sup runs each agent (Claude Code, Codex, Gemini CLI or any terminal program) behind a pty in a tmux pane, " +
		"restarts it when it crashes, reads what it is doing, and serves a control socket. " +
		"The other commands list the sessions, keep the queue of the ones waiting on you, jump to them, " +
		"answer their prompts and deliver prompts (triggers) to them."))
	p(".PP")
	p(roffText("TARGET is a session id, a unique id prefix, a session name or the document's path. " +
		"Every command takes --help."))
	p(".SH COMMANDS")
	for _, c := range root.Commands {
		manCommandSection(&b, c, "sup")
	}
	p(".SH EXIT STATUS")
	for _, e := range [][2]string{
		{"0", "success"},
		{"1", "an error (the message says which)"},
		{"2", "a command line sup cannot read (unknown command or flag, a flag without its value); sup trigger and sup route: the trigger timed out"},
		{"3", "sup trigger and sup route: the trigger failed or was cancelled; sup answer: the answer was refused"},
		{"130", "sup trigger: cancelled with Ctrl-C before it was typed"},
	} {
		p(".TP")
		p(`.B %s`, e[0])
		p(roffText(e[1]))
	}
	p(".SH ENVIRONMENT")
	for _, e := range [][2]string{
		{"SUP_RUNTIME_DIR", "where the control sockets live (default $XDG_RUNTIME_DIR/sup)"},
		{"SUP_SOCKET", "set in a supervised agent's environment: its supervisor's socket (sup hook reports to it)"},
		{"XDG_CONFIG_HOME, XDG_STATE_HOME", "the configuration (sup/config.yaml, sup/profiles/) and state (sup/audit.jsonl, sup/sessions.json) directories"},
	} {
		p(".TP")
		p(`.B %s`, roffText(e[0]))
		p(roffText(e[1]))
	}
	p(".SH FILES")
	for _, e := range [][2]string{
		{"~/.config/sup/config.yaml", "triggers (rate limit, loop guard), crash policy, notifications, hosts, the model reader"},
		{"~/.config/sup/profiles/NAME.yaml", "agent profiles (command, env_passthrough, classify rules)"},
		{"~/.local/state/sup/audit.jsonl", "one line per trigger, answer and route step"},
	} {
		p(".TP")
		p(`.I %s`, roffText(e[0]))
		p(roffText(e[1]))
	}
	p(".SH SEE ALSO")
	p(`.BR tmux (1)`)
	_, err := io.WriteString(w, b.String())
	return err
}

// manCommandSection writes c (and its subcommands) under COMMANDS.
func manCommandSection(b *strings.Builder, c *cli.Command, parent string) {
	if c.Hidden {
		return
	}
	name := parent + " " + c.Name
	fmt.Fprintf(b, ".SS %s\n", roffQuote(strings.TrimSpace(name+" "+c.ArgsUsage)))
	fmt.Fprintln(b, roffText(c.Usage))
	for _, f := range c.VisibleFlags() {
		d, ok := f.(cli.DocGenerationFlag)
		if !ok || f.Names()[0] == "help" {
			continue
		}
		var names []string
		for _, n := range f.Names() {
			names = append(names, `\fB`+roffText(dashed(n))+`\fR`)
		}
		head := strings.Join(names, ", ")
		if d.TakesValue() {
			head += ` \fI` + roffText(cmp.Or(d.TypeName(), "value")) + `\fR`
		}
		usage := d.GetUsage()
		if def := cmp.Or(d.GetDefaultText(), d.GetValue()); d.TakesValue() && d.IsDefaultVisible() && def != "" && def != `""` {
			usage += " (default: " + def + ")"
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", head, roffText(usage))
	}
	for _, sub := range c.Commands {
		manCommandSection(b, sub, name)
	}
}

// roffText escapes s for a roff text line: backslashes, and a leading
// dot or quote that roff would read as a request.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	s = strings.ReplaceAll(s, "\n", " ")
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffQuote is s as one quoted macro argument.
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `\(dq`) + `"`
}
