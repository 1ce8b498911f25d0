//go:build linux

package main

import (
	"fmt"
	"io"
	"strconv"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
	"github.com/sup-tmux/sup/ipc"
)

// BenchmarkLsRender is sup ls's table at 200 sessions: printSessions
// (every cell through safetext) beside the same table printed raw, as it
// was before issue 20. The sanitiser's cost is the difference
// (specs/security.md).
func BenchmarkLsRender(b *testing.B) {
	now := time.Now()
	sessions := make([]broker.Listing, 200)
	for i := range sessions {
		sessions[i] = broker.Listing{Socket: "/run/sup/" + strconv.Itoa(i) + ".sock", State: ipc.State{
			SessionID: fmt.Sprintf("s%08d", i), Name: "agent-" + strconv.Itoa(i), Workspace: "ws", Role: "coder",
			Profile: "claude", Lifecycle: "running", Activity: "ready", TmuxPane: "%" + strconv.Itoa(i),
			WaitingSince: now.Add(-time.Minute).UnixMilli(), Summary: "Run the migration on staging? (y/n) ✓",
		}}
	}
	b.Run("sanitised", func(b *testing.B) {
		for b.Loop() {
			printSessions(io.Discard, sessions, now)
		}
	})
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			tw := tabwriter.NewWriter(io.Discard, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, ""+"ID\tNAME\tWORKSPACE/ROLE\tPROFILE\tLIFECYCLE\tACTIVITY\tWAITING\tPANE")
			for _, s := range sessions {
				st := s.State
				fmt.Fprintf(tw, rawHostCell(view.AnyRemote(sessions), broker.HostOf(s))+"%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.SessionID, st.Name, view.Dash(workspaceRole(st)), st.Profile,
					st.Lifecycle, st.Activity, view.Dash(view.WaitingFor(st, now)), view.Dash(st.TmuxPane))
			}
			tw.Flush()
		}
	})
}

// rawHostCell is hostCell as it was before issue 20.
func rawHostCell(show bool, v string) string {
	if !show {
		return ""
	}
	return v + "\t"
}
