//go:build linux

package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sup-tmux/sup/internal/tmux"
)

// ErrNoTmux is wrapped by navigation errors when the caller is not inside
// tmux ($TMUX unset) or its server has no attached client to move.
var ErrNoTmux = errors.New("no tmux client to move")

// CallerTmux is the tmux server socket in the caller's $TMUX
// ("socket,pid,session"), "" outside tmux.
func CallerTmux(getenv func(string) string) string { return tmux.Caller(getenv).Socket }

// Jumped says what Jump did.
type Jumped struct {
	Client  string // the client moved ("" : tmux's current client)
	Session string // tmux session name
	Window  string // window id (@3)
	Pane    string // pane id (%7)
}

func (j Jumped) String() string {
	return fmt.Sprintf("switched %s to pane %s (tmux session %s)", orDefault(j.Client, "the current client"), j.Pane, j.Session)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Jump moves a tmux client to s's pane: switch-client to the pane's
// session, select-window, select-pane by pane id. socket is the caller's
// tmux server (CallerTmux); client names the client to move ("" lets tmux
// pick the caller's). It is the only function in sup that moves a client,
// and only the human's next, skip and pick call it: nothing else ever
// steals focus.
func Jump(ctx context.Context, socket, client string, s Listing) (Jumped, error) {
	st := s.State
	if socket == "" {
		return Jumped{}, fmt.Errorf("%w: not inside tmux ($TMUX is unset); %s is in pane %s", ErrNoTmux, st.Name, orDefault(st.TmuxPane, "(none)"))
	}
	if st.TmuxPane == "" {
		return Jumped{}, fmt.Errorf("%s does not run in a tmux pane (its supervisor had no $TMUX_PANE)", st.Name)
	}
	if st.TmuxSocket != "" && st.TmuxSocket != socket {
		return Jumped{}, fmt.Errorf("%s runs in pane %s of another tmux server (%s, yours is %s)", st.Name, st.TmuxPane, st.TmuxSocket, socket)
	}
	srv := tmux.Server{Socket: socket}
	clients, err := srv.Run(ctx, "list-clients", "-F", "#{client_name}")
	if err != nil || clients == "" {
		return Jumped{}, fmt.Errorf("%w: the tmux server %s has no attached client; %s is in pane %s", ErrNoTmux, socket, st.Name, st.TmuxPane)
	}
	where, err := srv.Query(ctx, st.TmuxPane, "#{session_id}\t#{session_name}\t#{window_id}\t#{pane_id}")
	if err != nil {
		return Jumped{}, fmt.Errorf("%s: its pane %s is gone: %w", st.Name, st.TmuxPane, err)
	}
	parts := strings.Split(where, "\t")
	if len(parts) != 4 || parts[3] != st.TmuxPane {
		return Jumped{}, fmt.Errorf("%s: pane %s: unexpected answer %q", st.Name, st.TmuxPane, where)
	}
	j := Jumped{Client: client, Session: parts[1], Window: parts[2], Pane: parts[3]}
	sw := []string{"switch-client"}
	if client != "" {
		sw = append(sw, "-c", client)
	}
	// By session id: a name may hold characters tmux's target syntax reads.
	sw = append(sw, "-t", parts[0])
	if _, err := srv.Exec(ctx, tmux.Raw(sw...), tmux.Raw("select-window", "-t", j.Window), tmux.Raw("select-pane", "-t", j.Pane)); err != nil {
		return Jumped{}, fmt.Errorf("jump to %s: %w", st.Name, err)
	}
	return j, nil
}
