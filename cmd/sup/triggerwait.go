//go:build linux

package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/ipc"
)

// exitTriggerCancelled is sup trigger's status after Ctrl-C took the
// trigger back: 128+SIGINT, as a shell reports an interrupted command.
const exitTriggerCancelled = 130

// waitTrigger sends the waiting trigger p on c and waits for its outcome,
// saying on stderr, one line each, when it is deferred and why and when it
// goes out (the session's trigger_progress events, read on a second
// connection). Ctrl-C (or SIGTERM) cancels it in the session before it is
// typed, says so, and exits 130 (specs/triggers.md, "What a waiting
// caller sees").
func waitTrigger(ctx context.Context, c *ipc.Client, s broker.Listing, p ipc.TriggerParams) (ipc.TriggerResult, error) {
	stopProgress := showProgress(ctx, os.Stderr, s, p.TriggerID)
	defer stopProgress()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan triggerAnswer, 1)
	go func() {
		var r ipc.TriggerResult
		err := c.Call(callCtx, ipc.MethodTrigger, p, &r)
		done <- triggerAnswer{r, err}
	}()
	select {
	case a := <-done:
		return a.r, a.err
	case sig := <-sigs:
		stopProgress()
		return ipc.TriggerResult{}, cancelWaiting(ctx, s, p, sig, done)
	}
}

// triggerAnswer is the answer to a trigger call made in the background.
type triggerAnswer struct {
	r   ipc.TriggerResult
	err error
}

// cancelWaiting takes the trigger back after sig and says what became of
// it; the error it returns is the exit status.
func cancelWaiting(ctx context.Context, s broker.Listing, p ipc.TriggerParams, sig os.Signal, done <-chan triggerAnswer) error {
	cp := ipc.CancelTriggerParams{TriggerID: p.TriggerID, Requester: p.Requester + " (" + sig.String() + ")"}
	r, finished, err := broker.CancelTrigger(ctx, s, cp, func() bool {
		// The request had not reached the session yet: wait for its
		// answer briefly, then cancel what it queued.
		select {
		case a := <-done:
			if a.err == nil {
				errf("sup: trigger %s finished before the cancel: %s\n", p.TriggerID, a.r.Result)
				return true
			}
		case <-time.After(time.Second):
		}
		return false
	})
	switch {
	case err != nil:
		return fmt.Errorf("trigger %s: %v: %w", p.TriggerID, sig, err)
	case finished:
		return exitError{exitTriggerCancelled}
	}
	if r.Cancelled {
		errf("sup: cancelled trigger %s to %s: nothing was typed into the agent (the audit records it as cancelled)\n", p.TriggerID, s.State.Name)
	} else {
		errf("sup: trigger %s to %s was not cancelled: %s\n", p.TriggerID, s.State.Name, r.Message)
	}
	return exitError{exitTriggerCancelled}
}

// showProgress prints the trigger_progress events of trigger id on w
// until the returned function is called. Best effort: without the events
// (an older supervisor) the trigger still waits silently.
func showProgress(ctx context.Context, w io.Writer, s broker.Listing, id string) (stop func()) {
	deferred := false
	return broker.FollowSession(ctx, s, []string{ipc.EventTriggerProgress}, func(ev ipc.Event) {
		var p ipc.TriggerProgress
		if ev.DecodeData(&p) != nil || p.TriggerID != id {
			return
		}
		switch p.State {
		case ipc.ProgressDeferred:
			deferred = true
			fprintf(w, "sup: trigger %s to %s deferred: %s (%s); looking again as that changes, giving up at %s; Ctrl-C cancels it\n",
				id, s.State.Name, p.Message, p.ErrorCode, time.UnixMilli(p.GivesUpAt).Format(time.TimeOnly))
		case ipc.ProgressWritten:
			if deferred {
				fprintf(w, "sup: trigger %s to %s goes out now (attempt %d); waiting for the agent to take it\n", id, s.State.Name, p.Attempt)
			}
		}
	})
}

// pendingCommand is `sup pending TARGET`: the session's pending
// triggers, from any shell.
func pendingCommand() *cli.Command {
	return queryCommand("pending", "list a session's pending triggers (cancel one with sup cancel TARGET ID)", ipc.MethodPendingTriggers,
		func(r ipc.PendingTriggers) { printPending(os.Stdout, r) })
}

func printPending(w io.Writer, r ipc.PendingTriggers) {
	if len(r.Triggers) == 0 {
		fmt.Fprintln(w, "no pending triggers")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTHREAD\tSTATE\tQUEUED\tWHY\tREQUESTER\tPROMPT")
	for _, t := range r.Triggers {
		why := "-"
		if t.Message != "" {
			why = t.Message
		}
		fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.TriggerID, t.ThreadID, t.State,
			time.UnixMilli(t.QueuedAt).Format(time.TimeOnly), why, cmp.Or(t.Requester, "-"), strconv.Quote(t.PromptHead))
	}
	tw.Flush()
}

// cancelCommand is `sup cancel TARGET ID`: take a pending trigger back
// before it is typed.
func cancelCommand() *cli.Command {
	return &cli.Command{
		Name: "cancel", Usage: "cancel a pending trigger before it is typed (sup pending TARGET lists them)", ArgsUsage: "TARGET TRIGGER_ID",
		Flags: []cli.Flag{jsonFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := targetArgs(cmd, 2); err != nil {
				return err
			}
			id := cmd.Args().Get(1)
			if id == "" {
				return usagef("cancel: missing TRIGGER_ID (sup pending TARGET lists them)")
			}
			return withTarget(ctx, cmd, func(c *ipc.Client, s broker.Listing) error {
				var r ipc.CancelTriggerResult
				p := ipc.CancelTriggerParams{TriggerID: id, Requester: "cli:" + view.CurrentUser() + " (sup cancel)"}
				if err := broker.Call(ctx, c, ipc.MethodCancelTrigger, p, &r); err != nil {
					if pe := (*ipc.Error)(nil); errors.As(err, &pe) && pe.Code == ipc.CodeTargetNotFound {
						return fmt.Errorf("cancel: no pending trigger %q in %s (sup pending %s lists them)", id, s.State.Name, s.State.Name)
					}
					return err
				}
				if cmd.Bool("json") {
					return printJSON(os.Stdout, r)
				}
				if !r.Cancelled {
					return fmt.Errorf("cancel: trigger %s of %s: %s", id, s.State.Name, r.Message)
				}
				outf("cancelled trigger %s of %s: nothing was typed\n", id, s.State.Name)
				return nil
			})
		},
	}
}
