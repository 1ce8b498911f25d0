//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
)

func noArgs(cmd *cli.Command) error {
	if cmd.Args().Len() > 0 {
		return fmt.Errorf("%s: unexpected argument %q (it takes none)", cmd.Name, cmd.Args().First())
	}
	return nil
}

func lsCommand() *cli.Command {
	return &cli.Command{
		Name: "ls", Usage: "list every live session",
		Flags: []cli.Flag{jsonFlag, hostFlag},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			f, err := fleet()
			if err != nil {
				return err
			}
			results, err := discoverHosts(ctx, f, cmd)
			if err != nil {
				return err
			}
			sessions := broker.AllSessions(results)
			if cmd.Bool("json") {
				states := make([]hostState, 0, len(sessions))
				for _, s := range sessions {
					states = append(states, hostState{Host: broker.HostOf(s), State: s.State})
				}
				return printJSON(os.Stdout, states)
			}
			return printSessions(os.Stdout, sessions, time.Now())
		},
	}
}

// hostState is one line of `sup ls --json`: the state and its host.
type hostState struct {
	Host string `json:"host"`
	ipc.State
}

func printSessions(w io.Writer, sessions []broker.Session, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	hosts := anyRemote(sessions)
	fmt.Fprintln(tw, hostCell(hosts, "HOST")+"ID\tNAME\tWORKSPACE/ROLE\tPROFILE\tLIFECYCLE\tACTIVITY\tWAITING\tPANE")
	servers := tmuxServers(sessions)
	for _, s := range sessions {
		st := s.State
		// Every cell holds a word (dash for none): an empty cell would
		// shift the columns for anyone reading them by whitespace.
		fprintf(tw, hostCell(hosts, broker.HostOf(s))+"%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.SessionID, dash(st.Name), dash(workspaceRole(st)), dash(st.Profile),
			dash(st.Lifecycle), dash(activityCell(st)), dash(waitingFor(st, now)), paneCell(st, servers))
	}
	return tw.Flush()
}

// activityCell is the ACTIVITY column: the activity, and the reasons that
// change what the human should do (specs/detection.md): `ready:asked` (the
// agent asked a question; triggers wait for the answer) and `busy:stalled`
// (busy, no progress for stall_after). One word, so scripts split on
// blanks as before.
func activityCell(st ipc.State) string {
	if st.Reason == "asked" || st.Reason == "stalled" {
		return st.Activity + ":" + st.Reason
	}
	return st.Activity
}

// tmuxServers counts the distinct tmux servers the sessions run in.
func tmuxServers(sessions []broker.Session) int {
	seen := map[string]bool{}
	for _, s := range sessions {
		if s.State.TmuxPane != "" {
			seen[s.State.TmuxSocket] = true
		}
	}
	return len(seen)
}

// paneCell is a session's pane: tmux numbers panes per server, so when the
// sessions run in more than one server %2 names two panes, and the cell
// says which server's (its socket's name: default, sup-demo, …).
func paneCell(st ipc.State, servers int) string {
	if st.TmuxPane == "" {
		return "-"
	}
	if servers > 1 && st.TmuxSocket != "" {
		return filepath.Base(st.TmuxSocket) + ":" + st.TmuxPane
	}
	return st.TmuxPane
}

func workspaceRole(st ipc.State) string {
	switch {
	case st.Workspace == "" && st.Role == "":
		return ""
	case st.Role == "":
		return st.Workspace
	}
	return st.Workspace + "/" + st.Role
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// waitingFor is how long a session has waited on the human, "" when it
// does not.
func waitingFor(st ipc.State, now time.Time) string {
	if st.WaitingSince == 0 {
		return ""
	}
	return age(now.Sub(time.UnixMilli(st.WaitingSince)))
}

// age is a short duration for humans: 42s, 5m, 2h05m, 3d.
func age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// anyRemote reports whether a listing holds another host's session: then
// it has a HOST column.
func anyRemote(sessions []broker.Session) bool {
	for _, s := range sessions {
		if s.Host != "" {
			return true
		}
	}
	return false
}

// hostCell is a listing's first cell, HOST, when it has one. It is part
// of a format: made a field, its % doubled.
func hostCell(show bool, v string) string {
	if !show {
		return ""
	}
	return strings.ReplaceAll(safetext.Field(v), "%", "%%") + "\t"
}
