//go:build linux

package main

import (
	"testing"

	"github.com/sup-tmux/sup/ipc"
)

// TestUnitPaneCell: one pane notation per column: bare ids while one tmux
// server is involved, SERVER:%N for every pane once there are more.
func TestUnitPaneCell(t *testing.T) {
	for _, c := range []struct {
		st      ipc.State
		servers int
		want    string
	}{
		{ipc.State{TmuxPane: "%1", TmuxSocket: "/tmp/tmux-0/default"}, 1, "%1"},
		{ipc.State{TmuxPane: "%1", TmuxSocket: "/tmp/tmux-0/default"}, 2, "default:%1"},
		{ipc.State{TmuxPane: "%7"}, 2, "?:%7"},
		{ipc.State{}, 2, "-"},
	} {
		if got := paneCell(c.st, c.servers); got != c.want {
			t.Errorf("paneCell(%+v, %d) = %q, want %q", c.st, c.servers, got, c.want)
		}
	}
}
