// Package demo is `sup demo`: three supervised demo agents (Agent, the
// hidden `sup demo-agent`) in a private tmux server with sup's key
// bindings, needing nothing but tmux.
//
// Invariants:
//   - The demo's tmux server is its own (tmux -L Socket, no user config,
//     no $TMUX), so it never touches the user's server, and Stop ends
//     only it, its agents and its files under Dir.
//   - Every word of a pane's command is sup's own, shell-quoted.
package demo
