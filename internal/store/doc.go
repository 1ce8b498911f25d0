// Package store is the files sup keeps on disk, shared by the supervisors
// and the broker, and the limits that keep them bounded over months of
// daily use (the directories themselves are internal/paths'): the session registry
// (sessions.json, RecordSession and ReadRegistry), the audit trail
// (audit.jsonl and its rotated files: Audit, the only writer, and
// ReadAuditSince), the session logs (OpenSessionLog, PruneLogs), the queue
// files `sup status-line` reads (WriteQueueFile), the state files the
// listings read (WriteStateFile) and the `log:`/`audit:`
// sections of config.yaml (Limits). Files that readers may see while they
// change are replaced whole (a temporary file renamed over the old one);
// files many processes append to take one write per line with O_APPEND.
//
// Invariants:
//
//   - A session log (LogWriter) never exceeds its cap by more than one
//     record: when the next write would take <id>.log over
//     Limits.Log.MaxSize it becomes <id>.log.1 (replacing an older one) and a
//     new <id>.log is opened, so one session holds at most 2 × MaxSize.
//   - Pruning (PruneLogs) removes only ended sessions' logs: a session whose
//     liveness callback says live, or whose log changed within MinIdle (a
//     supervisor opens its log before its socket listens), is never touched.
//     Age first (older than KeepDays), then oldest first until the logs of
//     the state dir fit MaxTotal.
//   - The audit trail (Audit) never loses an acknowledged line and never
//     holds one twice across a rotation, even when a writer is SIGKILLed at
//     any instruction: lines are whole single O_APPEND writes, fsync'd before
//     Append returns; rotation is one rename(2) of the active file to a new
//     dated name, never a copy; every append and rotation holds an flock on
//     audit.lock, and an append first cuts a torn tail (a line a killed
//     writer never finished, so never acknowledged) back to the last '\n'.
//   - ReadAuditSince reads across the rotation boundary: it opens the active
//     file and the dated files under the same lock, newest first, until a
//     file last written before the window, so a rotation racing the read
//     can neither hide nor repeat a line.
//
// Time-driven decisions take the time as an argument (PruneLogs' now,
// Audit's Now), so tests never sleep. It imports no pty, screen or
// classifier code: the broker reads and writes these files without pulling
// in the supervisor. Nor does it import ipc, the public protocol: audit
// records hold the protocol's values as strings (the writer's Caller as
// given), the queue facts arrive as a value to encode, and a log's
// liveness is the caller's callback (specs/supervisor.md, "Layout").
package store
