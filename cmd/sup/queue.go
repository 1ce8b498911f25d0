//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/internal/tmux"
	"github.com/sup-tmux/sup/ipc"
)

// stuckQueue is the queue of every host --host selects (cmd nil: all), in
// one FIFO order.
func stuckQueue(ctx context.Context, cmd *cli.Command) (*broker.Fleet, []broker.Entry, error) {
	f, results, err := discoverHosts(ctx, cmd)
	if err != nil {
		return nil, nil, err
	}
	return f, broker.Queue(broker.AllSessions(results), time.Now()), nil
}

func queueCommand() *cli.Command {
	return &cli.Command{
		Name: "queue", Usage: "list the sessions waiting on you, oldest first (skipped ones last, dimmed)",
		Flags: []cli.Flag{jsonFlag, hostFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			_, q, err := stuckQueue(ctx, cmd)
			if err != nil {
				return err
			}
			if cmd.Bool("json") {
				return printJSON(os.Stdout, broker.QueueItems(q))
			}
			return printQueue(os.Stdout, q, time.Now(), term.IsTerminal(int(os.Stdout.Fd())))
		},
	}
}

// printQueue writes the queue as a table; with dim, cooling entries are
// drawn faint (SGR 2).
func printQueue(w io.Writer, q []broker.Entry, now time.Time, dim bool) error {
	if len(q) == 0 {
		_, err := fmt.Fprintln(w, "nothing waits on you")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	sessions := make([]broker.Listing, len(q))
	for i, e := range q {
		sessions[i] = e.Listing
	}
	hosts := view.AnyRemote(sessions)
	servers := tmuxServers(sessions)
	fmt.Fprintln(tw, hostCell(hosts, "HOST")+"#\tNAME\tREASON\tWAITING\tPANE\tSUMMARY")
	for i, e := range q {
		st := e.State
		pos := fmt.Sprint(i + 1)
		summary := view.OneLine(safetext.Field(view.SummaryText(st)), 60) + modelChoices(st)
		if e.Cooling {
			pos = "-"
			summary = fmt.Sprintf("(skipped, %s left) %s", view.Age(time.UnixMilli(st.SkipUntil).Sub(now)), summary)
		}
		line := hostCell(hosts, broker.HostOf(e.Listing)) + fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", view.SafeArgs([]any{pos, st.Name, view.Dash(st.Reason), view.Dash(view.WaitingFor(st, now)), paneCell(st, servers), summary})...)
		if e.Cooling && dim {
			line = "\x1b[2m" + line + "\x1b[0m"
		}
		fmt.Fprintln(tw, line) // its cells are fields already; the dim SGR is sup's
	}
	return tw.Flush()
}

// modelChoices are the options the model reader read on the open
// dialog, with the numbers `sup answer` takes and the keys it types
// ("" when it read none): a reading is all the human has to answer by.
func modelChoices(st ipc.State) string {
	if len(st.ModelOptions) == 0 || len(st.PromptOptions) == 0 {
		return ""
	}
	var opts []string
	for _, o := range st.PromptOptions {
		opts = append(opts, safetext.Field(view.OptionText(st, o)))
	}
	return "  " + strings.Join(opts, "  ")
}

var (
	clientFlag  = &cli.StringFlag{Name: "client", Usage: "the tmux client to move (tmux's #{client_name}; default: the caller's)"}
	displayFlag = &cli.BoolFlag{Name: "display", Usage: "report through tmux display-message instead of stdout (for key bindings)"}
)

// reporter prints a verb's outcome: on stdout, or with --display as a tmux
// message on the client, where a key binding's output would otherwise be
// lost or pop up a pane.
type reporter struct {
	ctx    context.Context
	cmd    *cli.Command
	socket string
	fleet  *broker.Fleet
}

func (r reporter) say(format string, args ...any) {
	msg := fmt.Sprintf(format, view.SafeArgs(args)...)
	if r.cmd.Bool("display") && r.socket != "" {
		// Best effort: the message is a courtesy, the jump already happened.
		// Display escapes it: a session's name is the agent's text.
		_ = tmux.Server{Socket: r.socket}.Display(r.ctx, r.cmd.String("client"), "sup: "+msg)
		return
	}
	fmt.Println(msg)
}

// jumpTo moves the caller's tmux client to e, or explains why it cannot.
// Without a client it prints where e is and fails with status 1.
func jumpTo(r reporter, e broker.Entry) error {
	j, err := r.fleet.Jump(r.ctx, r.socket, r.cmd.String("client"), e.Listing)
	if errors.Is(err, broker.ErrNoTmux) {
		outln(e.State.TmuxPane)
		errf("sup: %v\n", err)
		return exitError{1}
	}
	if err != nil {
		return err
	}
	r.say("%s (%s, %s)", j, e.State.Name, view.Dash(e.State.Reason))
	return nil
}

func nextCommand() *cli.Command {
	return &cli.Command{
		Name:  "next",
		Usage: "move your tmux client to the session that has waited on you longest",
		Flags: []cli.Flag{clientFlag, displayFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			f, q, err := stuckQueue(ctx, nil)
			if err != nil {
				return err
			}
			r := reporter{ctx, cmd, broker.CallerTmux(os.Getenv), f}
			head, ok := broker.Head(q)
			if !ok {
				r.say("%s", emptyQueue(q))
				return nil
			}
			return jumpTo(r, head)
		},
	}
}

func emptyQueue(q []broker.Entry) string {
	if len(q) > 0 {
		return fmt.Sprintf("nothing waits on you (%d skipped, cooling down)", len(q))
	}
	return "nothing waits on you"
}

func skipCommand() *cli.Command {
	return &cli.Command{
		Name:      "skip",
		Usage:     "pass over the head of the queue (or TARGET) for a while, then move to the new head",
		ArgsUsage: "[TARGET]",
		Flags: []cli.Flag{clientFlag, displayFlag,
			&cli.DurationFlag{Name: "cooldown", HideDefault: true, Usage: "how long it stays out of the head (default: the session's queue.skip_cooldown)"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 1 {
				return usagef("skip: unexpected argument %q (give at most one TARGET)", cmd.Args().Get(1))
			}
			if d := cmd.Duration("cooldown"); d < 0 || d > 0 && d < time.Millisecond {
				return fmt.Errorf("skip: --cooldown %s: give a positive duration such as 10m", d)
			}
			f, results, err := discoverHosts(ctx, nil)
			if err != nil {
				return err
			}
			r := reporter{ctx, cmd, broker.CallerTmux(os.Getenv), f}
			sessions := broker.AllSessions(results)
			q := broker.Queue(sessions, time.Now())
			var victim broker.Listing
			if cmd.Args().Len() == 1 {
				wd, _ := os.Getwd() // Best effort: only document-path targets need it.
				if victim, err = f.FindIn(sessions, cmd.Args().First(), wd); err != nil {
					return err
				}
			} else {
				head, ok := broker.Head(q)
				if !ok {
					r.say("%s", emptyQueue(q))
					return nil
				}
				victim = head.Listing
			}
			res, err := f.Skip(ctx, victim, cmd.Duration("cooldown"))
			if err != nil {
				return fmt.Errorf("skip %s: %w", victim.State.Name, err)
			}
			// The new order follows from the answer; no second round trip.
			for i := range sessions {
				if sessions[i].Socket == victim.Socket && sessions[i].Host == victim.Host {
					sessions[i].State.WaitingSince, sessions[i].State.SkipUntil = res.WaitingSince, res.SkipUntil
				}
			}
			q = broker.Queue(sessions, time.Now())
			head, ok := broker.Head(q)
			if !ok {
				r.say("skipped %s until %s; %s", victim.State.Name, time.UnixMilli(res.SkipUntil).Format(time.TimeOnly), emptyQueue(q))
				return nil
			}
			errf("sup: skipped %s until %s\n", victim.State.Name, time.UnixMilli(res.SkipUntil).Format(time.TimeOnly))
			return jumpTo(r, head)
		},
	}
}

func statusLineCommand() *cli.Command {
	return &cli.Command{
		Name:  "status-line",
		Usage: "print a short queue summary for tmux's status-right: '#(/abs/path/to/sup status-line)' (tmux runs it with its own PATH; sup tmux-keys prints the line, sup doctor checks it)",
		Action: func(_ context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			// The queue files, not the sockets: tmux runs this for every
			// client every status-interval (specs/broker.md).
			dir, err := runtimeDir()
			if err != nil {
				return err
			}
			sessions, err := broker.ReadQueueFiles(dir)
			if err != nil {
				return err
			}
			// Other hosts: what the last fan-out learnt (specs/broker.md
			// "Hosts"), still a local read.
			caches, err := broker.ReadHostCaches(dir)
			if err != nil {
				return err
			}
			now := time.Now()
			line := statusLine(broker.Queue(append(sessions, broker.CachedSessions(caches)...), now))
			// tmux draws this line: one field (a name is an agent's
			// text), every # doubled so that no #[style] in it applies.
			fmt.Println(tmux.Escape(safetext.Field(line + remoteSuffix(line, caches, now))))
			broker.RefreshHostCaches(dir, caches, now)
			return nil
		},
	}
}

// statusLine is "⚠ 3 stuck · next: reviewer", or "" when nothing is
// eligible: an empty segment keeps the status bar quiet.
func statusLine(q []broker.Entry) string {
	head, ok := broker.Head(q)
	if !ok {
		return ""
	}
	return fmt.Sprintf("⚠ %d stuck · next: %s", broker.Eligible(q), head.State.Name)
}
