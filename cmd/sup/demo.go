//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/demo"
	"github.com/sup-tmux/sup/cmd/sup/internal/tmuxkeys"
	"github.com/sup-tmux/sup/internal/paths"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "open a tmux session with three supervised demo agents and the queue's keys (needs only tmux)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "socket", Value: "sup-demo", Sources: cli.EnvVars("SUP_DEMO_SOCKET"),
				Usage: "the private tmux server's socket name (tmux -L NAME)"},
			&cli.BoolFlag{Name: "stop", Usage: "end the demo: its tmux server, agents and files"},
			&cli.BoolFlag{Name: "no-attach", Usage: "print the queue and how to attach instead of attaching"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			if _, err := exec.LookPath("tmux"); err != nil {
				return fmt.Errorf("demo: tmux is not installed (sup needs it: apt-get install tmux, brew install tmux)")
			}
			d := demo.Demo{Socket: cmd.String("socket"), Dir: paths.DemoDir(paths.StateDir(os.Getenv))}
			// --stop without a server named finds the demo's (specs/broker.md, "The demo").
			find := cmd.Bool("stop") && (!cmd.IsSet("socket") || d.Socket == "")
			if find && d.Socket == "" {
				d.Socket = "sup-demo"
			}
			if d.Socket == "" || strings.ContainsAny(d.Socket, "/ ") {
				return fmt.Errorf("demo: --socket %q: give a plain tmux socket name such as sup-demo", d.Socket)
			}
			dir, err := runtimeDir()
			if err != nil {
				return err
			}
			d.RuntimeDir, d.Self = dir, selfPath()
			d.Keys = tmuxkeys.Snippet(d.Self)
			if cmd.Bool("stop") {
				return d.Stop(ctx, find)
			}
			if err := d.Start(ctx); err != nil {
				return err
			}
			if err := showDemo(ctx, d); err != nil {
				return err
			}
			return d.Attach(ctx, cmd.Bool("no-attach"))
		},
	}
}

// showDemo prints the demo's sessions, its queue and its keys.
func showDemo(ctx context.Context, d demo.Demo) error {
	// Wait until the deployer's first task reaches its confirmation and
	// the reviewer waits (about 2 s; a loaded machine takes longer), so
	// the listing shows what the text below says.
	var q []broker.Entry
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var err error
		if _, q, err = stuckQueue(ctx, nil); err != nil {
			return err
		}
		if len(q) >= 2 || time.Now().After(deadline) {
			break
		}
	}
	sessions, _ := d.Sessions(ctx) // Best effort: the listing is a courtesy.
	printSessions(os.Stdout, sessions, time.Now())
	fmt.Println()
	printQueue(os.Stdout, q, time.Now(), false)
	fmt.Printf(`
Three demo agents run under sup in tmux -L %[1]s: deployer asks to run a
command (y/n), reviewer waits for a task, coder is busy. The status line
shows how many wait on you. Keys (prefix is C-b):
  prefix Tab   jump to the session that has waited longest
  prefix g     pick from the queue (live preview; Enter jumps, s skips)
  prefix S     skip the head for a while
Answer in the pane itself (y and Enter, or type a task and Enter); the queue follows.
Stop it all with: %[3]s demo --stop%[2]s
%[4]s`, d.Socket, d.SocketFlag(), shellName(), pathNote())
	return nil
}

// demoAgentCommand is the agent `sup demo` supervises: a prompt, a
// thinking phase and, for risky-sounding tasks, a y/n confirmation. It
// reports each step as an agent's hooks would (straight to $SUP_SOCKET) and
// in its window title (what the demo profile's screen rules read).
func demoAgentCommand() *cli.Command {
	return &cli.Command{
		Name: "demo-agent", Usage: "the demo's fake agent (used by sup demo)", Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "first", Usage: "a task to start on at once, as if typed"},
			&cli.DurationFlag{Name: "think", Value: 3 * time.Second, Usage: "how long a task takes"},
			&cli.StringFlag{Name: "resume", Usage: "the conversation id to continue"},
			&cli.StringFlag{Name: "name", Usage: "its name, shown in its title (the demo's pane borders)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Duration("think") < 0 {
				return fmt.Errorf("demo-agent: --think %s: give a positive duration", cmd.Duration("think"))
			}
			a := demo.NewAgent(os.Stdout, os.Stdin, cmd.Duration("think"), cmd.String("resume"), os.Getenv("SUP_SOCKET"), cmd.String("name"))
			return a.Run(ctx, cmd.String("first"))
		},
	}
}
