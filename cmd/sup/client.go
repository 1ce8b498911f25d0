//go:build linux

package main

import (
	"context"

	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
)

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print JSON"}

// runtimeDir is the runtime dir every verb reads, after the one trust check
// (ipc.CheckRuntimeDir: ours, a real directory, 0700; one lstat, so it is
// made at every call rather than cached). It returns an error rather than a
// path sup must not trust: every caller has to handle it, so no verb can
// list, dial or read a dir that another user made (specs/security.md,
// "Local peers").
func runtimeDir() (string, error) {
	dir := paths.RuntimeDir(os.Getenv)
	if err := ipc.CheckRuntimeDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// withTarget finds the session TARGET names, on any host, and calls fn
// with a client connected to its supervisor: the one connection the verb
// makes (Fleet.Open: found without dialling from the queue files, then
// confirmed by the session's own state on that connection).
func withTarget(ctx context.Context, cmd *cli.Command, fn func(*ipc.Client, broker.Listing) error) error {
	f, err := fleet()
	if err != nil {
		return err
	}
	wd, _ := os.Getwd() // Best effort: only document-path targets need it.
	s, c, done, err := f.Open(ctx, cmd.Args().First(), wd)
	if err != nil {
		return err
	}
	defer done()
	return fn(c, s)
}

func targetArgs(cmd *cli.Command, max int) error {
	if n := cmd.Args().Len(); n == 0 {
		return usagef("%s: missing TARGET (a session id, id prefix, name or document path; see sup ls)", cmd.Name)
	} else if n > max {
		return usagef("%s: unexpected argument %q", cmd.Name, cmd.Args().Get(max))
	}
	return nil
}

// queryCommand is a verb that calls one parameterless method on TARGET and
// prints its result: as JSON with --json, else with show.
func queryCommand[T any](name, usage, method string, show func(T)) *cli.Command {
	return queryCommandWith(name, usage, method, nil, nil, show)
}

// queryCommandWith is queryCommand with extra flags that params turns into
// the method's params.
func queryCommandWith[T any](name, usage, method string, flags []cli.Flag, params func(*cli.Command) any, show func(T)) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "TARGET",
		Flags: append([]cli.Flag{jsonFlag}, flags...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := targetArgs(cmd, 1); err != nil {
				return err
			}
			var p any
			if params != nil {
				p = params(cmd)
			}
			return withTarget(ctx, cmd, func(c *ipc.Client, _ broker.Listing) error {
				var r T
				if err := broker.Call(ctx, c, method, p, &r); err != nil {
					return err
				}
				if cmd.Bool("json") {
					return printJSON(os.Stdout, r)
				}
				show(r)
				return nil
			})
		},
	}
}

func stateCommand() *cli.Command {
	return queryCommand("state", "show a session's state", ipc.MethodState, func(st ipc.State) { printState(os.Stdout, st) })
}

func pidCommand() *cli.Command {
	return queryCommand("pid", "print the child's pid (0 while none runs; --json adds sup's)", ipc.MethodPid,
		func(r ipc.PidResult) { outln(r.PID) })
}

func screenCommand() *cli.Command {
	ansi := &cli.BoolFlag{Name: "ansi", Usage: "keep colours and attributes (escape sequences)"}
	return queryCommandWith("screen", "print what the agent's screen shows", ipc.MethodScreen, []cli.Flag{ansi},
		func(cmd *cli.Command) any {
			if cmd.Bool("ansi") {
				return ipc.ScreenParams{Format: "ansi"}
			}
			return nil
		},
		func(r ipc.ScreenResult) {
			// The screen is the agent's output: lines kept, controls
			// shown; --ansi keeps the renderer's colours (SGR) only.
			if r.Format == "ansi" {
				fmt.Println(safetext.TextSGR(r.Text))
				return
			}
			fmt.Println(safetext.Text(r.Text))
		})
}

func historyCommand() *cli.Command {
	return queryCommand("history", "list the agent's recent exits (the crash ring buffer)", ipc.MethodHistory, func(r ipc.HistoryResult) {
		outf("health %s\n", r.Health)
		for _, e := range r.Exits {
			outf("%s  %-10s %s\n", time.UnixMilli(e.At).Format(time.DateTime), e.Class, e.Describe())
		}
	})
}

func printState(w io.Writer, st ipc.State) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k string, v any) { fprintf(tw, "%s\t%v\n", k, v) }
	row("session", st.SessionID)
	row("name", st.Name)
	row("document", st.Document)
	row("cwd", fmt.Sprintf("%s (%s)", st.CWD, st.CWDSource))
	row("profile", st.Profile)
	row("lifecycle", st.Lifecycle)
	act := st.Activity
	if st.Reason != "" {
		act += " (" + st.Reason + ")"
	}
	row("activity", act)
	if w := view.WaitingFor(st, time.Now()); w != "" {
		row("waiting", w+" on you, since "+time.UnixMilli(st.WaitingSince).Format(time.TimeOnly))
	} else {
		row("waiting", "-")
	}
	row("summary", view.Dash(view.OneLine(st.Summary, 200)))
	row("health", st.Health)
	row("pid", fmt.Sprintf("%d (sup %d)", st.PID, st.SupPID))
	pane := view.Dash(st.TmuxPane)
	if st.TmuxPane != "" && st.TmuxSocket != "" {
		pane += " (tmux server " + st.TmuxSocket + ")"
	}
	row("pane", pane)
	row("restarts", st.RestartCount)
	if e := st.LastExit; e != nil {
		row("last exit", fmt.Sprintf("%s %s at %s", e.Describe(), e.Class, time.UnixMilli(e.At).Format(time.TimeOnly)))
	}
	modelRows(tw, st)
	tw.Flush()
}

func injectCommand() *cli.Command {
	return &cli.Command{
		Name: "inject", Usage: "type TEXT (or stdin with -) into the agent, raw, then Enter", ArgsUsage: "TARGET TEXT|-",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "no-submit", Usage: "do not press Enter after the text"}, jsonFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := targetArgs(cmd, 2); err != nil {
				return err
			}
			if cmd.Args().Len() < 2 {
				return usagef("inject: missing TEXT (or - to read it from stdin)")
			}
			text := cmd.Args().Get(1)
			if text == "-" {
				b, err := io.ReadAll(os.Stdin)
				if err != nil {
					return fmt.Errorf("inject: read stdin: %w", err)
				}
				text = string(b)
			}
			return withTarget(ctx, cmd, func(c *ipc.Client, s broker.Listing) error {
				var r ipc.InjectResult
				p := ipc.InjectParams{Text: &text, Submit: !cmd.Bool("no-submit")}
				if err := broker.Call(ctx, c, ipc.MethodInject, p, &r); err != nil {
					return err
				}
				if cmd.Bool("json") {
					return printJSON(os.Stdout, r)
				}
				outf("injected %d bytes into %s\n", r.Written, s.State.Name)
				return nil
			})
		},
	}
}

func restartCommand() *cli.Command {
	return &cli.Command{
		Name: "restart", Usage: "restart the agent (resuming its conversation when its id is known)", ArgsUsage: "TARGET",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fresh", Usage: "start a new conversation"},
			&cli.BoolFlag{Name: "resume", Usage: "resume the exact conversation (default; fresh when its id is unknown)"},
			jsonFlag,
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := targetArgs(cmd, 1); err != nil {
				return err
			}
			if cmd.Bool("fresh") && cmd.Bool("resume") {
				return fmt.Errorf("restart: --fresh and --resume exclude each other")
			}
			mode := "resume"
			if cmd.Bool("fresh") {
				mode = "fresh"
			}
			return restartLike(ctx, cmd, ipc.MethodRestart, ipc.RestartParams{Mode: mode}, "restarted")
		},
	}
}

func resumeCommand() *cli.Command {
	return &cli.Command{
		Name: "resume", Usage: "leave halted (or the wait after a clean exit) and start the agent", ArgsUsage: "TARGET",
		Flags: []cli.Flag{jsonFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := targetArgs(cmd, 1); err != nil {
				return err
			}
			return restartLike(ctx, cmd, ipc.MethodResume, nil, "resumed")
		},
	}
}

func restartLike(ctx context.Context, cmd *cli.Command, method string, params any, verb string) error {
	return withTarget(ctx, cmd, func(c *ipc.Client, s broker.Listing) error {
		var r ipc.RestartResult
		if err := broker.Call(ctx, c, method, params, &r); err != nil {
			return err
		}
		if cmd.Bool("json") {
			return printJSON(os.Stdout, r)
		}
		if r.AlreadyRunning {
			outf("%s is already running (pid %d): nothing to resume\n", s.State.Name, r.PID)
			return nil
		}
		if verb == "resumed" && (s.State.Lifecycle == "halted" || s.State.Lifecycle == "restarting") {
			// From the queue's crash loop: say what follows (specs/crash.md).
			outf("resumed %s: its agent starts again (pid %d, %s); it leaves the queue, and comes back if it crashes again\n", s.State.Name, r.PID, r.Mode)
			return nil
		}
		outf("%s %s: pid %d (%s)\n", verb, s.State.Name, r.PID, r.Mode)
		return nil
	})
}

func stopCommand() *cli.Command {
	return &cli.Command{
		Name: "stop", Usage: "end the agent and its supervisor", ArgsUsage: "TARGET",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "SIGKILL at once instead of SIGHUP, SIGTERM and a grace period"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := targetArgs(cmd, 1); err != nil {
				return err
			}
			return withTarget(ctx, cmd, func(c *ipc.Client, s broker.Listing) error {
				graceful := !cmd.Bool("force")
				var r ipc.StopResult
				if err := broker.Call(ctx, c, ipc.MethodStop, ipc.StopParams{Graceful: &graceful}, &r); err != nil {
					return err
				}
				if r.EndedBy == "" {
					outf("stopped %s (no agent was running)\n", s.State.Name)
				} else {
					outf("stopped %s (%s ended the agent)\n", s.State.Name, r.EndedBy)
				}
				return nil
			})
		},
	}
}

func eventsCommand() *cli.Command {
	return &cli.Command{
		Name: "events", Usage: "follow a session's events (or every session's with --all), one JSON line each", ArgsUsage: "TARGET",
		Flags: []cli.Flag{&cli.StringSliceFlag{Name: "event", Usage: "only these events (lifecycle, resize, client); repeatable"},
			&cli.BoolFlag{Name: "all", Usage: "every session, new ones included, each line naming its session"}, hostFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Bool("all") {
				if cmd.Args().Len() > 0 || len(cmd.StringSlice("event")) > 0 {
					return fmt.Errorf("events: --all takes no TARGET and no --event (filter the JSON lines instead)")
				}
				return followAllHosts(ctx, cmd)
			}
			if err := targetArgs(cmd, 1); err != nil {
				return err
			}
			return withTarget(ctx, cmd, func(c *ipc.Client, _ broker.Listing) error {
				sub, err := c.Subscribe(ctx, cmd.StringSlice("event"))
				if err != nil {
					return err
				}
				enc := safetext.NewEncoder(os.Stdout)
				for {
					ev, err := sub.Next()
					if err != nil {
						if errors.Is(err, io.EOF) {
							return nil // the supervisor ended
						}
						return err
					}
					if err := enc.Encode(ev); err != nil {
						return err
					}
				}
			})
		},
	}
}
