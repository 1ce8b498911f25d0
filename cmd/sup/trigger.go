//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// Exit statuses of `sup trigger` beyond 0 (delivered, or accepted and
// deferred with --no-wait, or already active) and 1 (a usage or connection
// error).
const (
	exitTriggerTimeout = 2
	exitTriggerFailed  = 3
)

// triggerWait bounds a waiting trigger: the longest defer plus the retries
// fit well inside it with the default policy.
const triggerWait = 15 * time.Minute

func triggerCommand() *cli.Command {
	return &cli.Command{
		Name:      "trigger",
		Usage:     "deliver a prompt into the agent safely: deferred while you type, one paste, one submit, acknowledged (exit 2 timeout, 3 failed)",
		ArgsUsage: "TARGET TEXT|-",
		Flags:     append(triggerFlags(), jsonFlag),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			p, err := triggerParams(cmd)
			if err != nil {
				return err
			}
			return withTarget(ctx, cmd, func(c *ipc.Client, s broker.Listing) error {
				ctx, cancel := context.WithTimeout(ctx, triggerWait)
				defer cancel()
				if s.Host != "" {
					p.Requester = broker.OriginRequester(p.Requester)
				}
				var r ipc.TriggerResult
				if p.Wait && s.Host == "" {
					var err error
					if r, err = waitTrigger(ctx, c, s, p); err != nil {
						return triggerRefused(err, p)
					}
				} else if err := c.Call(ctx, ipc.MethodTrigger, p, &r); err != nil {
					return triggerRefused(err, p)
				}
				if cmd.Bool("json") {
					if err := printJSON(os.Stdout, r); err != nil {
						return err
					}
				} else {
					outln(view.DescribeTrigger(r, s.State.Name))
				}
				switch r.Result {
				case ipc.OutcomeTimeout:
					return exitError{exitTriggerTimeout}
				case ipc.OutcomeFailed, ipc.OutcomeCancelled:
					return exitError{exitTriggerFailed}
				}
				return nil
			})
		},
	}
}

// triggerFlags are the delivery options of sup trigger and sup route.
func triggerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "id", Usage: "trigger id, the idempotency key (default: a new one)"},
		&cli.StringFlag{Name: "thread", Usage: "thread id: rate limit and loop guard count per thread (default: default)"},
		&cli.StringFlag{Name: "reason", Usage: "why, shown in the envelope and the audit"},
		&cli.StringFlag{Name: "requester", Usage: "who asks, for the audit (default: cli:$USER)"},
		&cli.DurationFlag{Name: "ack-timeout", HideDefault: true, Usage: "how long each attempt waits for the agent's ack (default: the config's, 8s)"},
		&cli.BoolFlag{Name: "force", Usage: "deliver even while the operator types (needs --override-reason)"},
		&cli.StringFlag{Name: "override-reason", Usage: `"human_override: why" or "coordinator_override: why"`},
		&cli.BoolFlag{Name: "answering", Usage: "this is the answer to the question the agent asked (reason asked); without it the trigger waits for the human to answer (AGENT_ASKED)"},
		&cli.BoolFlag{Name: "no-envelope", Usage: "paste the bare prompt, without [BRIDGE_TRIGGER …] lines"},
		&cli.BoolFlag{Name: "no-wait", Usage: "return at once (accepted or deferred); the outcome comes as a trigger event"},
	}
}

// triggerParams checks the arguments before any session is looked up.
func triggerParams(cmd *cli.Command) (ipc.TriggerParams, error) {
	if err := targetArgs(cmd, 2); err != nil {
		return ipc.TriggerParams{}, err
	}
	if cmd.Args().Len() < 2 {
		return ipc.TriggerParams{}, usagef("trigger: missing TEXT (or - to read it from stdin)")
	}
	return buildTriggerParams(cmd, cmd.Args().Get(1))
}

// buildTriggerParams turns the trigger flags and TEXT (- for stdin) into
// params. What the session checks (the prompt's size against its
// trigger.max_prompt_bytes, the override's form, …) is left to it: the
// session's answer is the one check (triggerRefused words it in flags).
func buildTriggerParams(cmd *cli.Command, text string) (ipc.TriggerParams, error) {
	if d := cmd.Duration("ack-timeout"); d < 0 || (d > 0 && d < time.Millisecond) {
		return ipc.TriggerParams{}, fmt.Errorf("%s: --ack-timeout %s: must be a positive duration such as 8s", cmd.Name, d)
	}
	if text == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return ipc.TriggerParams{}, fmt.Errorf("%s: read stdin: %w", cmd.Name, err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return ipc.TriggerParams{}, fmt.Errorf("%s: TEXT is empty; nothing to deliver", cmd.Name)
	}
	id := cmd.String("id")
	if id == "" {
		id = fmt.Sprintf("cli-%d-%d", time.Now().UnixMilli(), os.Getpid())
	} else if trigger.SanitizeID(id) != id {
		return ipc.TriggerParams{}, fmt.Errorf("%s: --id %q: use only letters, digits and . _ : -", cmd.Name, id)
	}
	requester := cmd.String("requester")
	if requester == "" {
		requester = "cli:" + view.CurrentUser()
	}
	p := ipc.TriggerParams{
		TriggerID: id, ThreadID: cmd.String("thread"), Reason: cmd.String("reason"), Prompt: text,
		AckTimeoutMS: cmd.Duration("ack-timeout").Milliseconds(), ForceOverride: cmd.Bool("force"),
		OverrideReason: cmd.String("override-reason"), Requester: requester, Wait: !cmd.Bool("no-wait"),
		Answering: cmd.Bool("answering"),
	}
	if cmd.Bool("no-envelope") {
		off := false
		p.Envelope = &off
	}
	return p, nil
}

// paramFlags names a trigger's params as sup trigger's flags, for the
// session's refusals.
var paramFlags = strings.NewReplacer(
	"force_override", "--force", "override_reason", "--override-reason",
	"ack_timeout_ms", "--ack-timeout (ms)", "trigger_id", "--id", "thread_id", "--thread",
)

// triggerRefused words the session's refusal of trigger p (BAD_REQUEST,
// PAYLOAD_TOO_LARGE) in the command's terms: the session validated the
// params, once, with its own limits.
func triggerRefused(err error, p ipc.TriggerParams) error {
	var ie *ipc.Error
	if !errors.As(err, &ie) {
		return err
	}
	switch {
	case ie.Code == ipc.CodePayloadTooLarge && strings.HasPrefix(ie.Message, "frame of"):
		// Over the socket's frame limit: the request never reached the
		// trigger's own check.
		return fmt.Errorf("trigger: prompt is %d bytes, far over the limit (trigger.max_prompt_bytes, 8192 by default): send it in parts (the session refused the request: %s)", len(p.Prompt), ie.Message)
	case ie.Code == ipc.CodeBadRequest, ie.Code == ipc.CodePayloadTooLarge:
		// The session's words ("trigger: …"), its params named as flags.
		return errors.New(paramFlags.Replace(ie.Message))
	}
	return err
}

func unblockCommand() *cli.Command {
	return &cli.Command{
		Name: "unblock", Usage: "lift the loop guard's block of a thread", ArgsUsage: "TARGET THREAD",
		Flags: []cli.Flag{jsonFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := targetArgs(cmd, 2); err != nil {
				return err
			}
			thread := cmd.Args().Get(1)
			if thread == "" {
				return usagef("unblock: missing THREAD (state lists blocked_threads)")
			}
			return withTarget(ctx, cmd, func(c *ipc.Client, s broker.Listing) error {
				var r ipc.UnblockResult
				if err := broker.Call(ctx, c, ipc.MethodUnblock, ipc.UnblockParams{ThreadID: thread}, &r); err != nil {
					return err
				}
				if cmd.Bool("json") {
					return printJSON(os.Stdout, r)
				}
				if r.Blocked {
					outf("unblocked thread %s of %s\n", r.ThreadID, s.State.Name)
				} else {
					outf("thread %s of %s was not blocked\n", r.ThreadID, s.State.Name)
				}
				return nil
			})
		},
	}
}
