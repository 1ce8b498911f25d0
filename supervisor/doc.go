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
//     the state owner (state.go: the session's facts — the run loop's, the
//     agent's activity facts of agentfacts.go and the open prompt's
//     identity of prompt.go — published as one snapshot), the current
//     child's screen and output clock (display, view.go), the per-child
//     watchers of the screen, the foreground and the stall (watch.go), the
//     input router and the pane reader (input.go, panereader.go), the
//     outer terminal (terminal.go), the trigger desk's port (trigger.go;
//     answers in answer.go), the notifier (notifier.go), the model reader
//     (model.go), the queue file (queuefile.go), the registry
//     (registry.go) and the socket's watch.
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
// One owner for the session's facts (state.go): the run loop's facts
// (plan, child, lifecycle, crash tracker, spawn counts, conversation id,
// pane size), the activity tracker and the facts read with it (draft,
// focus, the last hook prompt, the stall's work, the last foreground look,
// a crash episode) and the open prompt's identity are fields of one
// stateOwner, changed only by its update — one change at a time, under
// its one lock — which publishes, before it returns, an immutable
// snapshot of all of them through an atomic.Pointer. Readers (state,
// explain, history, the queue file, the notifier, activity events) load
// one snapshot and take no lock; the desk's port (gates, progress, prompt,
// ack facts, the answer's ack) loads one snapshot per call. No read
// changes anything: the prompt's id is fixed by the update that changed
// its facts, and a dialog the screen no longer shows after an answer is
// closed, and recorded as closed by the screen, by the update that
// records that verdict (promptHandle.noteScreen, screenAnswered in
// changed.go), not by the answer's gone check (AnswerAck), which reads.
//
// One change signal (changes, changed.go): a channel closed by every
// publication of a snapshot and by the few changes of facts outside it
// (the screen's text, output: factsChanged). The desk's waits and the
// trigger's bring-back take it before they read and select on it with
// their deadline; no change is poked by hand where it is published.
//
// The snapshot's invariants (asserted by TestSessionStateSnapshotStress
// on every read, through the snapshot, State() and the socket):
//
//   - Versions: a reader never loads a version older than one it loaded;
//     every publication closes the change signal after it stores the
//     snapshot and before the next one is stored, so a waiter that took
//     the signal before it loaded version v is woken by v+1, and one that
//     loads v+2 finds it closed.
//   - No agent, no work: in a lifecycle without an agent (restarting,
//     exited, halted, stopped) the activity is neither busy nor
//     needs_confirmation, and no prompt is open (betweenRuns presents
//     what the dead agent's last look said as unknown).
//   - A prompt id only with a prompt: prompt_id is set only when the
//     activity is prompting (needs_confirmation, or ready with a question
//     asked), and prompt_options only with a prompt_id. (Not the
//     converse: a dialog the screen saw answered before the tracker heard
//     has no id.)
//   - Running means a child: lifecycle running has a child (a pid); the
//     update that ends a child's run changes the lifecycle with it.
//
// Locks: each remaining lock has one owner, is taken only in its file and
// is held for one read or write of what it guards:
//
//   - stateOwner.mu (state.go): held only inside update, around one change
//     and its publication, so changes are published in order; nothing is
//     taken under it (the publication's poke of the change signal is an
//     atomic swap) and no reader takes it.
//   - inputRouter.mu serialises every write of bytes to the child's pty
//     (input.go): the desk's write check (the gates, read from one
//     snapshot, no lock) runs under it, so no key lands between the check
//     and the write. This is I/O, not facts: it must stay a lock. The pane
//     reader's lock is taken before it (a key is booked, then routed). It
//     is not held across a trigger's or an answer's submit delay:
//     inputRouter.writing, taken before it, keeps sup's writes (paste,
//     delay, Enter) one at a time while the pane's keys go through, and
//     the confirm before the Enter re-reads the gates under it; it sees a
//     key in the delay by the count of routed keys (inputRouter.typed),
//     never by a key's stamp (stamped at the read, routed later). Taken
//     under it by the check and the confirm: the desk's lock
//     (inputRouter.mu → Desk.mu, a trigger's Desk.open) and the screen's
//     (inputRouter.mu → modelReader.mu and the screen model's lock, an
//     answer's Prompt); none of them takes inputRouter.mu.
//   - Session.eventMu (observe.go): around the load, the compare and the
//     send of one `activity` event, so events go out in version order;
//     only the log's and the socket server's own locks (Publish does not
//     block) are taken under it.
//   - modelReader.mu (model.go), terminal.mu (terminal.go), queueFile.mu
//     (the file's write path: an older snapshot is never written after a
//     newer one) and regMu (one sessions.json write at a time): leaves.
//   - the desk's lock guards its queue and is never held while calling
//     the session (deskPort); its one order is under inputRouter.mu (a
//     trigger's check), never around it.
//
// The session's counters (counters.go) are atomics in a sync.Map; the
// display's output clock and view are atomics (view.go).
package supervisor
