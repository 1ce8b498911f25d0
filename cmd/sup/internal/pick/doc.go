// Package pick is `sup pick`: a full-screen chooser over the stuck queue
// of every host, with a live preview of the selected session's screen and
// keys that skip it or answer its open prompt. Run returns the chosen
// entry; cmd/sup moves the tmux client there.
//
// Invariants:
//   - Every text from a session (names, summaries, prompt options, the
//     screen preview) is drawn as safetext fields or lines: no agent's
//     bytes reach the terminal raw (specs/security.md, "Untrusted text").
//   - The selection is kept by host and id across refreshes (two hosts may
//     hold the same id), and at most one queue read is in flight: a slow
//     host never piles reads up.
//   - An answer names the prompt the picker shows (Expect), so a prompt
//     that changed meanwhile is refused rather than answered.
package pick
