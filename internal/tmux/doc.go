// Package tmux runs tmux for sup: the one place that builds a tmux
// command line (specs/security.md, "tmux").
//
// tmux expands formats in some arguments: a display-message message, a
// window or session name (new-window -n, new-session -s/-n,
// rename-window), a pane title (select-pane -T), a start directory (-c)
// and the status options it draws. In a format #(cmd) runs cmd in a
// shell as the operator, #{…} reads variables and #[…] styles. Text an
// agent wrote (a summary, a title, a session or host name) must never be
// read as one.
//
// Invariant: no argument built from session data reaches tmux in a
// format position unescaped. The API makes that the only way to write it:
//
//   - [Format] is a format sup's source wrote (#{pane_id}); plain string
//     parameters are data and are escaped (# → ##) or passed where tmux
//     reads them literally (a target, a shell command, -e, a user option).
//   - The commands that expand an argument (display-message, new-window,
//     new-session, rename-*, set-option, select-pane -T, split-window and
//     any -c) have typed builders ([Display], [Query], [NewWindow],
//     [SetOption]); [Raw] refuses them, so a caller cannot hand one data
//     by mistake.
//   - [Authored] passes every word as it is: only for command lines whose
//     every word is a constant of sup's source or a shell-quoted command
//     (the demo's layout, the test rig).
//
// [Caller] is the one parser of $TMUX.
package tmux
