//go:build linux

// Package supervisor is `sup start`: one supervisor, one agent, one
// document.
//
// A session's life: Start resolves the plan (plan.Resolve: the document's
// frontmatter, config.yaml, the profile, the cwd and the environment) and
// compiles the profile's classifier pack, opens the session log, the
// control socket and the queue file, and makes sup the head of the agent's
// process family (proc.BecomeFamilyHead, proc.StartGuard). Session.Run
// then loops: spawn resolves the plan again and starts the child behind a
// new pty (proc.StartChild), its output is pumped to the pane and into the
// screen model that the classifier reads, hooks and the pane's keys feed
// the activity tracker, and socket methods (state, inject, restart, stop,
// hook, skip, trigger…) are answered; when the child exits, the crash
// policy decides between a restart (with backoff), a wait for the human,
// or the end. Everything Start set up comes down in reverse order
// (teardown).
//
// The package map (specs/supervisor.md, "Layout"):
//
//   - supervisor: the session runtime — Session and its loop (loop.go,
//     session.go), spawn wiring (spawn.go), the socket methods
//     (methods.go), observers of hooks and the screen (observe.go,
//     watch.go, view.go), the input router and the outer terminal
//     (input.go, terminal.go), the queue file and the registry
//     (queuefile.go, registry.go), the socket's watch and Start; answering
//     a prompt (answer.go), explaining the activity (explain.go) and
//     notifying the human (notifier.go).
//   - supervisor/plan: resolving a run; pure.
//   - supervisor/store: the files on disk (dirs, sessions.json, the audit
//     trail, queue files).
//   - supervisor/proc: the child, its pty and pump, the process family and
//     the guard.
//   - supervisor/desk: the trigger desk (queue, gates, delivery, acks,
//     idempotency), behind the narrow desk.Session interface (trigger.go
//     is the session's side).
//   - supervisor/activity, classify, screen, trigger, notify: pure leaves —
//     the activity tracker, the classifier packs, the terminal model, the
//     trigger policy and the notification policy.
//
// Locks: each type owns one lock and no two are held in a fixed nesting
// except as written here. Session.mu guards the session's facts (plan,
// child, lifecycle, activity, draft, prompt); the desk's lock guards its
// queue and is never held while calling the session; the input router's
// lock serialises writes to the child; the queue file's lock is taken
// before Session.mu (publishQueue reads the facts under it), never after.
package supervisor
