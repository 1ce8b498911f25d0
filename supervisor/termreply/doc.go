// Package termreply answers the common terminal queries an agent writes
// when nobody else will: when sup's stdin is not a terminal (headless,
// detached, piped), no tmux or terminal reads the agent's output, and a
// CLI that waits for the reply to its device-attributes or cursor query
// waits for ever.
//
// A [Responder] is fed the child's output as the pump sees it and returns
// the replies a terminal would write to the child's input: DA1, DSR status,
// cursor position (CPR and DECXCPR, from a cursor the caller supplies,
// normally sup's own screen model) and the OSC 10/11 foreground and
// background colours. It is pure: it neither reads nor writes anything
// itself, and a query split across output chunks is reassembled (at most
// [MaxHeld] bytes are kept; a longer unfinished sequence is no query).
//
// The replies copy tmux's (input.c), so an agent sees the same answers
// under a headless sup as in a tmux pane. Replies come from the terminal
// side, so the input tokenizer (supervisor/paneinput) would never count
// them as typing; sup writes them straight to the child's pty.
package termreply
