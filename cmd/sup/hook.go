//go:build linux

package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/sup-tmux/sup/hooks"
	"github.com/sup-tmux/sup/ipc"
	"github.com/urfave/cli/v3"
)

// hookBudget is all the time `sup hook` may take: it runs inside the
// agent's turn, so it must never hang or break the agent, whatever happens
// to sup. A supervisor tells who sends each hook from the sender's process
// tree (specs/security.md, "Who is calling") and refuses a sender its
// watchdog ended before that walk ("cannot tell who is calling"), so a
// budget too short for a loaded machine loses hooks: 90 ms lost
// TestGeminiHooksDriveState's BeforeAgent in CI, and 250 ms its
// ToolPermission notification with the suite's tests four at a time beside
// it. 1 s: an answering supervisor replies in about a millisecond, so the
// budget is only spent when sup is stuck, and then costs the agent at most
// a second per hook (the agents' own hook timeouts are a minute).
const hookBudget = time.Second

// maxHookPayload bounds what is read from stdin; a larger payload is dropped.
const maxHookPayload = 4 << 20

func hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "forward an agent hook payload (stdin, or the last argument for Codex notify) to $SUP_SOCKET; always exits 0, prints nothing",
		ArgsUsage: "[PAYLOAD]",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "agent", Value: "claude", Usage: ipc.AgentChoices()}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			// Whatever is slow below, the agent gets its exit 0 in time.
			watchdog := time.AfterFunc(hookBudget, func() { os.Exit(0) })
			defer watchdog.Stop()
			forwardHook(ctx, cmd.String("agent"), cmd.Args().Slice())
			return nil
		},
	}
}

func forwardHook(ctx context.Context, agent string, args []string) {
	sock := os.Getenv("SUP_SOCKET")
	if sock == "" {
		return // the agent runs outside sup
	}
	var data []byte
	if len(args) > 0 {
		data = []byte(args[len(args)-1])
	} else {
		b, err := io.ReadAll(io.LimitReader(os.Stdin, maxHookPayload+1))
		if err != nil || len(b) > maxHookPayload {
			return
		}
		data = b
	}
	// Best effort: sup may be gone or busy; the agent's turn goes on.
	_ = hooks.Forward(ctx, agent, sock, data, time.Now().Add(hookBudget-10*time.Millisecond))
}
