//go:build linux

// updatemaxprocs=0: the Go runtime would otherwise re-read the cgroup's CPU
// limit (sched_getaffinity, a pread of cpu.max) each time its sysmon
// thread wakes, at most once a second: at every look of an idle
// supervisor. A supervisor does not need GOMAXPROCS to follow a changing
// limit (issue 30, the idle fleet).
//go:debug updatemaxprocs=0

// Command sup supervises AI coding agents in tmux panes: `sup start` owns
// one agent behind a pty and serves its control socket; the other verbs talk
// to those sockets.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/supervisor/proc"
	"github.com/urfave/cli/v3"
)

// exitError carries an exit status through urfave/cli without printing.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	proc.RunGuardIfAsked()
	os.Exit(run(context.Background(), os.Args))
}

func run(ctx context.Context, args []string) int {
	args, command := splitCommand(args)
	app := newApp(command)
	helpCommandOnlyAtBranches(app.Commands)
	oneLineUsageErrors([]*cli.Command{app})
	enableCompletion(app)
	err := app.Run(ctx, args)
	var ee exitError
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "sup: %s\n", safetext.Text(ue.msg))
		return exitUsage
	default:
		// An error may quote an agent's or another host's words: its
		// lines are kept (some errors add a line of detail), no control.
		fmt.Fprintf(os.Stderr, "sup: %s\n", safetext.Text(err.Error()))
		return 1
	}
}

// newApp is sup's command tree (command: sup start's agent command).
func newApp(command []string) *cli.Command {
	return &cli.Command{
		Name:  "sup",
		Usage: "supervise AI coding agents in tmux panes",
		Commands: []*cli.Command{
			startCommand(command),
			stateCommand(), pidCommand(), injectCommand(), restartCommand(), stopCommand(),
			resumeCommand(), screenCommand(), historyCommand(), eventsCommand(), lsCommand(),
			queueCommand(), nextCommand(), skipCommand(), pickCommand(), dashCommand(), statusLineCommand(), tmuxKeysCommand(),
			routeCommand(), metricsCommand(), webCommand(), demoCommand(), demoAgentCommand(),
			hooksCommand(), doctorCommand(), whoamiCommand(), manCommand(),
			hookCommand(),
			classifyCommand(),
			triggerCommand(), pendingCommand(), cancelCommand(), unblockCommand(), answerCommand(), explainCommand(), relayCommand(),
		},
		Version: versionString(),
		// An unknown verb is a usage error (exit 2, one line), with the
		// nearest verb when one is close: urfave's default prints "No
		// help topic" and exits 3, the status of a refused answer.
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() == 0 {
				return cli.ShowRootCommandHelp(cmd)
			}
			return unknownVerb(cmd, cmd.Args().First())
		},
	}
}

// helpCommandOnlyAtBranches drops urfave/cli's `help` subcommand (alias
// `h`) from every verb without subcommands: there its first argument is a
// target, and a session called h or help was read as a help topic ("No
// help topic for 'true'", exit 3). `sup help`, `sup hooks help` and
// --help everywhere stay.
func helpCommandOnlyAtBranches(cmds []*cli.Command) {
	for _, c := range cmds {
		if len(c.Commands) == 0 {
			c.HideHelpCommand = true
		}
		helpCommandOnlyAtBranches(c.Commands)
	}
}

// splitCommand takes the agent command after `--` off `sup start`'s
// arguments: urfave/cli drops the `--` itself, and sup must tell the DOC
// apart from a command that follows it.
func splitCommand(args []string) (rest, command []string) {
	if len(args) < 2 || args[1] != "start" {
		return args, nil
	}
	for i, a := range args {
		if a == "--" {
			return args[:i], append([]string{}, args[i+1:]...)
		}
	}
	return args, nil
}

// unknownVerb is the error for `sup VERB` when no verb is called that,
// naming the nearest ones.
func unknownVerb(root *cli.Command, verb string) error {
	var names []string
	for _, c := range root.Commands {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	msg := fmt.Sprintf("unknown command %q", verb)
	if best := nearest(verb, names); len(best) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(best, " or "))
	}
	if root.Root() != root {
		return usageError{fmt.Sprintf("%s: %s; sup %s --help lists them", root.Name, msg, root.Name)}
	}
	return usageError{msg + "; sup help lists the commands"}
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
