// Package screen models what a terminal shows for a byte stream a child
// program writes to its pty, so sup can tell what an agent's TUI displays
// without asking tmux.
//
// [Screen] is a synchronous xterm-like emulator: a grid of cells, a cursor,
// scroll regions, the alternate screen and SGR attributes, plus the stream
// signals a classifier wants (window title, OSC 9 notifications and
// progress, Codex's OSC 7501 state, BEL, and the modes an agent turns on).
// It never writes anything back: terminal queries (DA, DSR, OSC 10/11,
// XTVERSION, DECRQM, kitty graphics probes) are ignored because the real
// terminal, which receives the same bytes first, answers them. An emulator
// whose Write waits for someone to read its replies wedges the pump; this
// one has no replies to wait on.
//
// [Model] wraps a Screen in its own goroutine behind a bounded queue, so
// the byte pump can hand it every chunk without ever blocking. See
// specs/screen.md for what is emulated, what is ignored and why.
package screen
