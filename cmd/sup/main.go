//go:build linux

// Command sup supervises AI coding agents in tmux panes: `sup start` owns
// one agent behind a pty and serves its control socket; the other verbs talk
// to those sockets.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

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
	app := &cli.Command{
		Name:  "sup",
		Usage: "supervise AI coding agents in tmux panes",
		Commands: []*cli.Command{
			startCommand(command),
			stateCommand(), pidCommand(), injectCommand(), restartCommand(), stopCommand(),
			resumeCommand(), screenCommand(), historyCommand(), eventsCommand(), lsCommand(),
			queueCommand(), nextCommand(), skipCommand(), pickCommand(), dashCommand(), statusLineCommand(), tmuxKeysCommand(),
			routeCommand(), metricsCommand(), demoCommand(), demoAgentCommand(),
			hooksCommand(), doctorCommand(),
			hookCommand(),
			classifyCommand(),
			triggerCommand(), triggersCommand(), cancelCommand(), unblockCommand(), answerCommand(), explainCommand(), relayCommand(),
		},
		Version: versionString(),
	}
	enableCompletion(app)
	err := app.Run(ctx, args)
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(os.Stderr, "sup: %v\n", err)
		return 1
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
