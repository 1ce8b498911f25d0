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
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
	"github.com/sup-tmux/sup/supervisor/trigger"
)

// exitAnswerRefused is sup answer's status when the supervisor refused
// the answer and typed nothing (NO_PROMPT, PROMPT_CHANGED,
// OPERATOR_BUSY); 2 is an ACK_TIMEOUT (typed, not acknowledged).
const exitAnswerRefused = 3

func answerCommand() *cli.Command {
	return &cli.Command{
		Name:      "answer",
		Usage:     "answer a session's open prompt, or the question its turn asked (text, typed as the next turn), without attaching: yes, no, always, 1-9 or text (exit 2 not acknowledged, 3 refused)",
		ArgsUsage: "TARGET CHOICE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "expect", Usage: "the prompt_id you saw (sup queue --json): refused with PROMPT_CHANGED if the prompt is another"},
			&cli.BoolFlag{Name: "force", Usage: "answer even while the human types in the pane (needs --override-reason)"},
			&cli.StringFlag{Name: "override-reason", Usage: `"human_override: why" or "coordinator_override: why"`},
			&cli.StringFlag{Name: "requester", Usage: "who answers, for the audit (default: cli:$USER)"},
			&cli.DurationFlag{Name: "ack-timeout", HideDefault: true, Usage: "how long to wait for the prompt to leave (default: the config's trigger ack timeout, 8s)"},
			jsonFlag,
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			p, err := answerParams(cmd)
			if err != nil {
				return err
			}
			return withTarget(ctx, cmd, func(c *ipc.Client, s broker.Listing) error {
				var r ipc.AnswerResult
				if s.Host != "" {
					p.Requester = broker.OriginRequester(p.Requester)
				}
				err := broker.Call(ctx, c, ipc.MethodAnswer, p, &r)
				var ie *ipc.Error
				if errors.As(err, &ie) {
					errf("sup: answer %s: %s: %s\n", s.State.Name, ie.Code, ie.Message)
					if hint := crashHint(s.State); hint != "" {
						errf("sup: %s\n", hint)
					}
					if ie.Code == ipc.CodeAckTimeout {
						return exitError{exitTriggerTimeout}
					}
					return exitError{exitAnswerRefused}
				}
				if err != nil {
					return err
				}
				if cmd.Bool("json") {
					return printJSON(os.Stdout, r)
				}
				outf("answered %s prompt %s with %s (%s; acked by %s, now %s)\n", view.Possessive(s.State.Name), r.PromptID, r.Choice, r.Summary, r.AckedBy, r.Activity)
				return nil
			})
		},
	}
}

// answerParams checks the arguments before any session is looked up.
func answerParams(cmd *cli.Command) (ipc.AnswerParams, error) {
	if err := targetArgs(cmd, 2); err != nil {
		return ipc.AnswerParams{}, err
	}
	choice := cmd.Args().Get(1)
	if strings.TrimSpace(choice) == "" {
		return ipc.AnswerParams{}, fmt.Errorf("answer: missing CHOICE (yes, no, always, 1-9, or text for a dialog that takes it; - reads it from stdin)")
	}
	if choice == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return ipc.AnswerParams{}, fmt.Errorf("answer: read stdin: %w", err)
		}
		choice = strings.TrimRight(string(b), "\n")
	}
	if _, err := trigger.ParseOverride(cmd.Bool("force"), cmd.String("override-reason")); err != nil {
		return ipc.AnswerParams{}, fmt.Errorf("answer: --force/--override-reason: %w", err)
	}
	if d := cmd.Duration("ack-timeout"); d < 0 || (d > 0 && d < time.Millisecond) {
		return ipc.AnswerParams{}, fmt.Errorf("answer: --ack-timeout %s: must be a positive duration such as 8s", d)
	}
	requester := cmd.String("requester")
	if requester == "" {
		requester = "cli:" + view.CurrentUser()
	}
	return ipc.AnswerParams{Choice: choice, Expect: cmd.String("expect"), ForceOverride: cmd.Bool("force"),
		OverrideReason: cmd.String("override-reason"), Requester: requester, AckTimeoutMS: cmd.Duration("ack-timeout").Milliseconds()}, nil
}

func explainCommand() *cli.Command {
	return queryCommand("explain", "why a session has its activity: every signal sup holds and which one decided", ipc.MethodExplain,
		func(r ipc.ExplainResult) { printExplain(os.Stdout, r, time.Now()) })
}

// printExplain is explain's human form: the verdict, the deciding signal
// first, then every other fact.
func printExplain(w io.Writer, r ipc.ExplainResult, now time.Time) {
	ago := func(ms int64) string {
		if ms == 0 {
			return "never"
		}
		return now.Sub(time.UnixMilli(ms)).Round(100*time.Millisecond).String() + " ago"
	}
	// Before any signal there is no reason and no time: say so in words
	// rather than "unknown () since never".
	line := "activity " + r.Activity
	if r.Reason != "" {
		line += " (" + r.Reason + ")"
	}
	if r.Since != 0 {
		line += " since " + ago(r.Since)
	} else {
		line += ": no signal yet"
	}
	fprintf(w, "%s\n", line)
	if r.Source != "" || r.Rule != "" {
		fprintf(w, "decided by %s %s\n", r.Source, r.Rule)
	}
	if r.Summary != "" {
		fprintf(w, "summary %s\n", r.Summary)
	}
	fprintf(w, "lifecycle %s\n", r.Lifecycle)
	for _, s := range r.Signals {
		mark := " "
		if s.Decided {
			mark = "*"
		}
		fprintf(w, "%s %-9s %-28s %s %s, %s\n", mark, s.Source, s.Rule, s.Activity, s.Reason, ago(s.At))
	}
	if sc := r.Screen; sc != nil {
		rule := sc.Rule
		if rule == "" {
			rule = "(no rule matched)"
		}
		fprintf(w, "screen rule %s → %s, %s\n", rule, sc.Activity, ago(sc.At))
		for _, l := range sc.Lines {
			fprintf(w, "  | %s\n", l)
		}
	}
	printExplainModel(w, r.Model)
	if p := r.Process; p != nil {
		fprintf(w, "process child %d, foreground group %d: %s (task %d: %s)\n", p.ChildPID, p.ForegroundGroup, p.Wait, p.Task, p.Call)
		if p.Rule != "" {
			fprintf(w, "  rule %s: %s\n", p.Rule, p.Detail)
		}
	}
	if r.PromptID != "" {
		fprintf(w, "prompt %s\n", r.PromptID)
	}
	if p := r.Progress; p != nil && p.StallAfterMS > 0 {
		what := p.What
		if what == "" {
			what = "none"
		}
		fprintf(w, "progress last seen %s (%s); stalled after %s without\n", what, ago(p.At), time.Duration(p.StallAfterMS)*time.Millisecond)
	}
	fprintf(w, "operator busy %v (last key %s", r.OperatorBusy, ago(r.LastInputAt))
	if r.Draft != "" {
		fprintf(w, ", draft %q", r.Draft)
	}
	fprintf(w, "), last output %s\n", ago(r.LastOutputAt))
	if r.Focused != nil {
		fprintf(w, "focused %v (the pane's last focus report)\n", *r.Focused)
	}
	if r.WaitingSince != 0 {
		fprintf(w, "waiting since %s\n", ago(r.WaitingSince))
	}
	if r.SkipUntil > now.UnixMilli() {
		fprintf(w, "skipped for %s more\n", time.UnixMilli(r.SkipUntil).Sub(now).Round(time.Second))
	}
}

// crashHint says what will help a session in a crash loop (specs/crash.md,
// "A crash waits on you"): nothing is asked of the human but a restart.
// "" for any other session.
func crashHint(st ipc.State) string {
	what := safetext.Field(st.Summary)
	switch {
	case st.Lifecycle == "halted":
		return fmt.Sprintf("%s is halted after repeated crashes (%s): sup resume %s clears the halt and starts its agent again", st.Name, what, st.Name)
	case st.Lifecycle == "restarting":
		return fmt.Sprintf("%s agent crashed (%s) and restarts by itself: sup resume %s starts it now", view.Possessive(st.Name), what, st.Name)
	case st.Reason == "crashed":
		return fmt.Sprintf("%s agent keeps crashing (%s): it waits on you until a run lasts; sup restart %s starts it again now", view.Possessive(st.Name), what, st.Name)
	}
	return ""
}
