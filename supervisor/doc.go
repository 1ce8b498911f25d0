//go:build linux

// Package supervisor is `sup start`: one supervisor, one agent, one
// document.
//
// A session's life: Start resolves the plan (plan.Resolve: the document's
// frontmatter, config.yaml, the profile, the cwd and the environment) and
// compiles the profile's classifier pack, opens the session log, the
// control socket and the queue file, and makes sup the head of the agent's
// process family (proc.BecomeFamilyHead, proc.StartGuard). Session.Run
// then loops: spawn starts the child from the plan Start resolved behind a
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
//   - supervisor: the session runtime — Session and its run loop
//     (session.go, loop.go, spawn.go, Start), and the owners it is made
//     of, one file each: the socket's methods (api.go, over the narrow
//     backend of backend.go, as tailscale's localapi over LocalBackend),
//     the agent's activity facts (agentfacts.go), the open prompt's
//     identity (prompt.go), the current child's screen and output clock
//     (display, view.go), the per-child watchers of the screen, the
//     foreground and the stall (watch.go), the input router and the pane
//     reader (input.go, panereader.go), the outer terminal (terminal.go),
//     the trigger desk's port (trigger.go; answers in answer.go), the
//     notifier (notifier.go), the model reader (model.go), the queue file
//     (queuefile.go), the registry (registry.go) and the socket's watch.
//   - internal/plan (outside supervisor/: the broker and the CLI use it
//     too): resolving a run; pure.
//   - internal/store (likewise): the files on disk (sessions.json, the
//     audit trail, queue files, session logs); their names are
//     internal/paths'.
//   - supervisor/proc: the child, its pty and pump, the process family and
//     the guard.
//   - supervisor/desk: the trigger desk (queue, gates, delivery, acks,
//     idempotency), behind the narrow desk.Port interface (trigger.go
//     is the session's side).
//   - supervisor/activity, classify, screen, trigger, notify: pure leaves —
//     the activity tracker, the classifier packs, the terminal model, the
//     trigger policy and the notification policy.
//
// Locks: each owner has its own lock, taken only in its own file, and
// held only for one read or write of what it guards:
//
//   - Session.mu guards the run loop's facts (plan, child, lifecycle,
//     crash tracker, spawn counts, the conversation id, the pane size).
//     It is taken only in the files of the loop that writes them
//     (session.go, loop.go, spawn.go); everyone else reads a copy
//     (Session.facts, Plan, current) or asks the loop (Session.ask). A
//     leaf: nothing is taken under it.
//   - agentFacts.mu guards the activity tracker and the facts read with it
//     (draft, focus, the last hook prompt, the stall's work, the last
//     foreground look); agentfacts.go. Only the prompt tracker's lock is
//     taken under it (withPrompt fixes a prompt's id in the order of the
//     tracker states read), so prompt ids follow the tracker.
//   - promptTracker.mu (prompt.go), modelReader.mu (model.go), counters.mu
//     (counters.go), terminal.mu (terminal.go): leaves.
//   - inputRouter.mu serialises every write to the child's pty; the desk's
//     write check reads the gates (Session.mu, then agentFacts.mu, one
//     after the other) under it. The pane reader's lock is taken before it
//     and before agentFacts.mu (a key is booked, then routed). It is not
//     held across a trigger's or an answer's submit delay:
//     inputRouter.writing, taken before it, keeps sup's writes (paste,
//     delay, Enter) one at a time while the pane's keys go through
//     (input.go).
//   - changes.mu (changed.go): a leaf, over the change signal's channel.
//   - queueFile.mu and regMu are taken before Session.mu and
//     agentFacts.mu (the facts they write are read under them), never
//     after.
//   - the desk's lock guards its queue and is never held while calling
//     the session (deskPort), so it has no order with any of these.
//
// Session.mu and agentFacts.mu are never held together: a reader that
// needs both (state, explain, the desk's gates, the queue facts) reads one
// copy, then the other.
package supervisor
