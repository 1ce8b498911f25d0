//go:build linux

package broker

import (
	"context"
	"fmt"
	"strings"

	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/internal/tmux"
)

// remoteWindowOption marks the local tmux window that shows a remote
// session: host:session_id, so the window is found again whatever it is
// named or wherever it was moved.
const remoteWindowOption = "@sup_remote"

// JumpRemote moves the caller's tmux client to a remote session s of
// host h: the human's client is on this host and the pane on another, so
// it switches to a local window named host:name that runs `ssh -t HOST
// tmux [-S SOCKET] attach-session -t %PANE` (attaching by pane makes that
// pane's window and the pane current), creating it in the client's
// session the first time and pointing it at the pane again (respawn) the
// next times. Like Jump, it moves only the caller's client.
func (sh SSH) JumpRemote(ctx context.Context, socket, client string, h Host, s Listing) (Jumped, error) {
	st := s.State
	if socket == "" {
		return Jumped{}, fmt.Errorf("%w: not inside tmux ($TMUX is unset); %s is in pane %s on host %s", ErrNoTmux, st.Name, orDefault(st.TmuxPane, "(none)"), h.Name)
	}
	if st.TmuxPane == "" {
		return Jumped{}, fmt.Errorf("%s on host %s does not run in a tmux pane (its supervisor had no $TMUX_PANE)", st.Name, h.Name)
	}
	srv := tmux.Server{Socket: socket}
	clients, err := srv.Run(ctx, "list-clients", "-F", "#{client_name}")
	if err != nil || clients == "" {
		return Jumped{}, fmt.Errorf("%w: the tmux server %s has no attached client; %s is in pane %s on host %s", ErrNoTmux, socket, st.Name, st.TmuxPane, h.Name)
	}
	remote := []string{"tmux"}
	if st.TmuxSocket != "" {
		remote = append(remote, "-S", st.TmuxSocket)
	}
	remote = append(remote, "attach-session", "-t", st.TmuxPane)
	cmdline := shellquote.Join(sh.SSHCommand(h, remote...)...)
	key := h.Name + ":" + st.SessionID

	windows, err := srv.Run(ctx, "list-windows", "-a", "-F", "#{session_id}\t#{window_id}\t#{pane_id}\t#{"+remoteWindowOption+"}")
	if err != nil {
		return Jumped{}, err
	}
	var where []string
	for _, line := range strings.Split(windows, "\n") {
		if f := strings.Split(line, "\t"); len(f) == 4 && f[3] == key {
			where = f
			break
		}
	}
	if where != nil {
		// Reuse: the same window, its ssh started again on the pane the
		// supervisor reports now.
		if _, err := srv.Run(ctx, "respawn-pane", "-k", "-t", where[2], cmdline); err != nil {
			return Jumped{}, fmt.Errorf("jump to %s on %s: %w", st.Name, h.Name, err)
		}
	} else {
		target := ""
		if client != "" {
			target = "client:" + client
		}
		sess, err := srv.Query(ctx, target, "#{session_id}")
		if err != nil {
			return Jumped{}, fmt.Errorf("jump to %s on %s: the client's session: %w", st.Name, h.Name, err)
		}
		// The name is the remote's: tmux.Window escapes it (a #(…) in a
		// remote session's name must not run here).
		out, err := srv.NewWindow(ctx, tmux.Window{Target: sess + ":", Name: h.Name + ":" + st.Name, Detached: true,
			Print: "#{session_id}\t#{window_id}\t#{pane_id}", Command: cmdline})
		if err != nil {
			return Jumped{}, fmt.Errorf("jump to %s on %s: %w", st.Name, h.Name, err)
		}
		where = append(strings.Split(out, "\t"), key)
		if len(where) != 4 {
			return Jumped{}, fmt.Errorf("jump to %s on %s: unexpected new-window answer %q", st.Name, h.Name, out)
		}
		set, err := tmux.SetUserOptionCmd(where[1], remoteWindowOption, key)
		if err == nil {
			_, err = srv.Exec(ctx, set)
		}
		if err != nil {
			return Jumped{}, fmt.Errorf("jump to %s on %s: %w", st.Name, h.Name, err)
		}
	}
	j := Jumped{Client: client, Session: where[0], Window: where[1], Pane: where[2]}
	sw := []string{"switch-client"}
	if client != "" {
		sw = append(sw, "-c", client)
	}
	sw = append(sw, "-t", j.Session)
	if _, err := srv.Exec(ctx, tmux.Raw(sw...), tmux.Raw("select-window", "-t", j.Window)); err != nil {
		return Jumped{}, fmt.Errorf("jump to %s on %s: %w", st.Name, h.Name, err)
	}
	return j, nil
}
