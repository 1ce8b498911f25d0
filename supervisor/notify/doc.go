// Package notify decides when a supervisor tells the human that its
// session has waited long enough (specs/broker.md, "Notifications"): once
// per waiting episode, after `after`, never while an attached tmux client
// shows the session's pane, never in a skip cooldown, and again every
// `repeat` when asked. It is pure: the clock and the "is anyone looking"
// question come in as arguments; the supervisor does the I/O.
package notify
