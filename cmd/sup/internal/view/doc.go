// Package view is the text the CLI and its full-screen views (pick, dash)
// share: the untrusted-text argument filter of every printed line
// (SafeArgs), short cells (Dash, Age, WaitingFor, OneLine), the model
// reader's marks (SummaryText, OptionText), a trigger outcome's one line
// and the requester's user name.
//
// Invariants:
//   - SafeArgs makes every string, error, Stringer and named string type a
//     safetext.Field (one line, no control byte, capped), copying args only
//     when one changes: an agent's words never reach a terminal raw
//     through a format (specs/security.md, "Untrusted text").
//   - Nothing here prints or reads the network: callers print.
package view
