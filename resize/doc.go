// Package resize keeps the size of sup's pty equal to the size of the
// terminal sup itself runs in.
//
// sup sits between a tmux pane and the agent: the pane's terminal is sup's
// stdin, and the agent talks to a pty that sup owns. When the pane is
// resized the kernel sends SIGWINCH to sup, not to the agent, so sup must
// copy the new size onto its pty; the kernel then signals the agent in turn.
// A [Follower] does that copying.
package resize
