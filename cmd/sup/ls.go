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
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/ipc"
)

func noArgs(cmd *cli.Command) error {
	if cmd.Args().Len() > 0 {
		return usagef("%s: unexpected argument %q (it takes none)", cmd.Name, cmd.Args().First())
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
			_, results, err := listHosts(ctx, cmd)
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

func printSessions(w io.Writer, sessions []broker.Listing, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	hosts := view.AnyRemote(sessions)
	fmt.Fprintln(tw, hostCell(hosts, "HOST")+"ID\tNAME\tWORKSPACE/ROLE\tPROFILE\tLIFECYCLE\tACTIVITY\tWAITING\tPANE")
	servers := tmuxServers(sessions)
	for _, s := range sessions {
		st := s.State
		// Every cell holds a word (dash for none): an empty cell would
		// shift the columns for anyone reading them by whitespace.
		fprintf(tw, hostCell(hosts, broker.HostOf(s))+"%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.SessionID, view.Dash(st.Name), view.Dash(workspaceRole(st)), view.Dash(st.Profile),
			view.Dash(st.Lifecycle), view.Dash(activityCell(st)), view.Dash(view.WaitingFor(st, now)), paneCell(st, servers))
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
func tmuxServers(sessions []broker.Listing) int {
	seen := map[string]bool{}
	for _, s := range sessions {
		if s.State.TmuxPane != "" {
			seen[s.State.TmuxSocket] = true
		}
	}
	return len(seen)
}

// paneCell is a session's pane: tmux numbers panes per server, so when the
// sessions run in more than one server %2 names two panes, and every cell
// says which server's (its socket's name: default, sup-demo, …; ? when
// unknown).
func paneCell(st ipc.State, servers int) string {
	if st.TmuxPane == "" {
		return "-"
	}
	switch {
	case servers > 1 && st.TmuxSocket != "":
		return filepath.Base(st.TmuxSocket) + ":" + st.TmuxPane
	case servers > 1:
		// One notation in the column: a server sup was not told (an
		// older sup's state) is unknown, not the same as the others'.
		return "?:" + st.TmuxPane
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

// hostCell is a listing's first cell, HOST, when it has one. It is part
// of a format: made a field, its % doubled.
func hostCell(show bool, v string) string {
	if !show {
		return ""
	}
	return strings.ReplaceAll(safetext.Field(v), "%", "%%") + "\t"
}
