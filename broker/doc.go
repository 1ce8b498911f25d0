//go:build linux

// Package broker is sup acting across all supervisors, the fleet side of
// the CLI (`sup ls`, `queue`, `next`, `pick`, `skip`, `status-line`,
// `metrics`, `events`, `route`, `trigger TARGET`):
//
//   - Discover finds the control sockets in the runtime dir, asks every
//     supervisor for its state in parallel and removes sockets left by
//     dead supervisors; FindTarget resolves the TARGET a user names (id,
//     id prefix, name, document, or the session of the caller's cwd).
//   - Queue orders the sessions that wait on the human (the stuck queue:
//     waiting_since, then skip cooldowns); Head and Eligible read it.
//     ReadQueueFiles is its cheap twin for the status line: the queue
//     files the supervisors publish, no socket round trip.
//   - The tmux helpers (CallerTmux, Jump, JumpRemote; package internal/tmux runs tmux) move the caller's
//     own client to a session's pane and never anyone else's (no focus
//     stealing).
//   - Router routes a prompt by workspace, role or name: to a live
//     session, else by starting a supervisor for the document the session
//     registry (sessions.json) last recorded, else by a headless resume of
//     its conversation; every step goes to the audit trail.
//   - FollowAll streams every supervisor's events (`sup events --all`),
//     and WriteMetrics renders the fleet's metrics.
//   - Hosts (specs/broker.md "Hosts"): ServeRelay is `sup relay`, the v1
//     protocol over ssh's stdio for one host's supervisors (RelayConnect
//     its one-session pipe); SSH.DialHost reaches it through one
//     multiplexed ssh connection per host; Fanout.DiscoverHosts asks every
//     host at once, each within its own deadline, and leaves the host
//     cache that ReadHostCaches gives the status line; SSH.FollowHost
//     streams a host's events across relay restarts by seq, and
//     SSH.WatchHost is Watch for a host (the dashboard's remote rows);
//     JumpRemote shows a remote pane in a local window over ssh.
//   - Fleet is all of that for one command: NewFleet reads config.yaml's
//     hosts: and checks the runtime dir once, and its methods list
//     (Discover, Queue, Metrics), resolve (Find, FindIn, Open), dial and call
//     (Dial, Call, Answer, Skip) and jump across hosts, so the CLI only
//     parses flags and prints. RefreshHostCaches re-runs the binary
//     detached to refresh the status line's host caches.
//
// Invariants (specs/broker.md, "Finding one session"): acting on one
// session dials that session's socket only (Fleet.Find and Router.live
// read socket names and queue files, asking only the sockets with no
// readable facts, and every socket only on a miss), and Open sends a verb
// only to a session whose own state, on that connection, still matches
// the target (a queue file is never trusted to pick it); only a listing
// (Discover) removes stale sockets, never a verb on one session; Queue is
// the one queue builder, whether its sessions came from the sockets or
// from the queue files, which are a cache of their state.
//
// It keeps no state of its own: every fact lives in a supervisor or in the
// files of internal/store, so nothing is lost when no broker runs. It
// imports the plan and the store but none of the supervisor's runtime
// (pty, screen, classifier, process code): `go list -deps ./broker` shows
// none of them (specs/broker.md, specs/supervisor.md "Layout").
package broker
