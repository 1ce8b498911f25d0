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
		Usage:     "answer a session's open prompt, or the question its turn asked (text, typed as the next turn), without attaching: yes, no, always, enter, 1-9 or text (exit 2 not acknowledged, 3 refused)",
		ArgsUsage: "TARGET CHOICE",
		Description: `The open dialog's choices are in sup state TARGET (prompt_choices): exactly
what this takes. Per agent (specs/detection.md, "Answering a prompt"):

  Claude Code  permission: yes (1), always (2), no (Esc), 1-N. On a file
               prompt always is "Yes, and switch to accept edits ... for
               this session": the whole session changes mode, and the
               answer says so. Trust: yes, no (Esc ends Claude Code).
               Notices ("Press Enter to continue"): yes, enter. Other
               option lists (theme, auto mode): enter, no, 1-N.
  Codex        permission: yes (y), always (p), no (Esc). Trust: enter, no.
               Hooks review: yes (Trust all and continue), enter, no.
               /hooks list: no (close), enter. Other lists: enter, no.
  Gemini CLI   permission: yes (1), always (2), no (Esc), 1-3. Trust:
               yes (1), no (3: Don't trust), enter, 1-3.
  any program  [y/N] and the like: yes, no. Any other question or value
               (rm -i, input()): TEXT, typed as a line; yes and no as the
               words. Press ENTER: yes, enter. Passwords: never.
  asked        a question the agent's turn asked: TEXT, the next turn.`,
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
				printDetail(os.Stdout, "the prompt's command", r.PromptDetail)
				if r.Option != "" {
					outf("picked: %s\n", view.OneLine(safetext.Field(r.Option), 200))
				}
				if r.Mode != "" {
					outf("the whole session is now in %s mode, not only this prompt\n", safetext.Field(r.Mode))
				}
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
		return ipc.AnswerParams{}, usagef("answer: missing CHOICE (yes, no, always, enter, 1-9, or text for a dialog that takes it; - reads it from stdin)")
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

// printDetail prints a prompt's whole command under a heading, one line
// of it per row (view.DetailLines: uncut, escaped, prefixed); nothing
// when detail is "".
func printDetail(w io.Writer, heading, detail string) {
	if detail == "" {
		return
	}
	lines, plural := strings.Count(strings.TrimRight(detail, "\n"), "\n")+1, "s"
	if lines == 1 {
		plural = ""
	}
	fprintf(w, "%s (%d line%s, %d bytes):\n", heading, lines, plural, len(detail))
	for _, row := range view.DetailLines(detail, 0) {
		io.WriteString(w, row+"\n") // safe already, and uncut: fprintf would cap it
	}
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
	printDetail(w, "command", r.PromptDetail)
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
